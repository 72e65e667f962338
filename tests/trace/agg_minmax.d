/* flags: -q */
/* run: bcache run seq n=40 start=100 */
fbt::bcache_read:entry
{
	@lo = min(arg0);
	@hi = max(arg0);
	@neg = min(-(int64_t)arg0);
}
END
{
	printa("min %@d\n", @lo);
	printa("max %@d\n", @hi);
	printa("negated min %@d\n", @neg);
}
