/* flags: -q */
/* run: bcache run seq n=10 start=100 */
fbt::bcache_read:entry
{
	@top[arg0] = sum(arg0);
}
END
{
	trunc(@top, 3);
	printa("%d %@d\n", @top);
}
