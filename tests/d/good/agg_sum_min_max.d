/* sum, min and max of integer expressions. */
fbt::bcache_read:entry
{
	@total[probefunc] = sum(arg1);
	@smallest[probefunc] = min(arg1);
	@largest[probefunc] = max(arg1 * 2 + 1);
	@bytes = sum(4096);
}
