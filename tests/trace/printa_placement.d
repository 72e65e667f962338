/* flags: -q */
/* run: bcache run seq n=12 start=100 */
/* Where %@ sits in a printa() format, with widths and flags on it and on the keys */
fbt::bcache_read:entry
{
	@n[arg0 % 3, arg0 % 2 ? "odd" : "even"] = count();
	@total[arg0 % 3] = sum(arg0);
}
END
{
	printa("%@d first, then %d and %s\n", @n);
	printa("[%d] [%@5d] [%-5s]\n", @n);
	printa("%d|%s|%@-3d|\n", @n);
	printa("%3d => %@08d\n", @total);
	printa("%d: %@x\n", @total);
	printa("%d: %@#o\n", @total);
	printa("key only %d\n", @total);
}
