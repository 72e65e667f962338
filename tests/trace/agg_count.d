/* run: bcache run seq n=40 start=100 */
fbt::bcache_read:entry
{
	@calls[probefunc] = count();
}
