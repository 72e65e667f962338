/* count(), keyed by several kinds of keys. */
fbt::bcache_read:entry
{
	@calls = count();
	@by_name[execname] = count();
	@by_pair[execname, cpu] = count();
	@by_tid[tid, probefunc, arg0] = count();
}
