/* flags: -q */
/* run: bcache run seq n=10 start=100 */
fbt::bcache_read:entry
{
	@total = sum(arg0);
}
END
{
	normalize(@total, 10);
	printa("normalized %@d\n", @total);
	denormalize(@total);
	printa("denormalized %@d\n", @total);
}
