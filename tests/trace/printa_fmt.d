/* flags: -q */
/* run: bcache run seq n=9 start=100 */
fbt::bcache_read:entry
{
	@c[arg0 % 3] = count();
	@s[arg0 % 3] = sum(arg0);
}
END
{
	printa("mod %d: %@d reads\n", @c);
	printa("mod %d: count %@d sum %@d\n", @c, @s);
	printa(@s);
}
