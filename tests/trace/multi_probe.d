/* flags: -q */
/* run: bcache run seq n=5 start=100 */
fbt::bcache_read:entry,
fbt::bcache_read:return
{
	@[probename] = count();
}
