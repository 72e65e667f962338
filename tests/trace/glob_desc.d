/* flags: -q -x aggsortkey */
/* run: bcache run seq n=5 start=100 */
fbt::bcache_rea*:entry
{
	@[probefunc] = count();
}
