/* flags: -q */
/* run: bcache run seq n=10 start=100 */
/* printa() formats over every value aggregation, joined by key, and the default layout of several */
fbt::bcache_read:entry
{
	k = arg0 % 2 ? "odd" : "even";
	@c[k] = count();
	@s[k] = sum(arg0);
	@lo[k] = min(arg0);
	@hi[k] = max(arg0);
	@mean[k] = avg(arg0);
	@sd[k] = stddev(arg0);
}
END
{
	printa("%s: count=%@d sum=%@d min=%@d max=%@d avg=%@d stddev=%@d\n", @c, @s, @lo, @hi,
	    @mean, @sd);
	printa("%-4s %@u\n", @c);
	printa("%@d is the largest %s\n", @hi);
	printa(@c, @s, @mean);
}
