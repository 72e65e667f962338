/* flags: -q */
/* run: bcache run seq n=10 start=100 */
/* trunc() keeping the largest, the smallest (negative count) or nothing, then printa */
fbt::bcache_read:entry
{
	@big[arg0] = sum(arg0 - 100);
	@small[arg0] = sum(arg0 - 100);
	@none[arg0] = count();
	@more[arg0 % 2 ? "odd" : "even"] = count();
}
END
{
	trunc(@big, 2);
	trunc(@small, -3);
	trunc(@none);
	trunc(@more, 5);
	printa("big %d %@d\n", @big);
	printa("small %d %@d\n", @small);
	printa("none %d %@d\n", @none);
	printa("more %s %@d\n", @more);
	printf("done\n");
}
