/* Global associative arrays: declared and implicit, read and written. */
int sizes[string, int];

fbt::bcache_read:entry
{
	sizes[execname, cpu] = arg1;
	seen[probefunc] = 1;
	last[tid] = timestamp;
}

fbt::bcache_read:return
/seen[probefunc]/
{
	trace(sizes[execname, cpu] + 1);
	trace(timestamp - last[tid]);
	seen[probefunc] = 0;
}
