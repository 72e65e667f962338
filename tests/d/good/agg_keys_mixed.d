/* Keys of every type: strings, integers, symbols, curthread. */
fbt::bcache_read:entry
{
	@a[func(arg0), sym(arg1), execname, tid, curthread] = count();
	@b[strjoin(probefunc, "!"), (uint8_t)arg0] = max(arg1);
}
