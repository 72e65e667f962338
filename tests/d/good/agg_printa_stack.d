/* printa's %k prints a stack() key (frames a line, stackindent deep), anywhere among the keys */
fbt::bcache_read:entry
{
	@[arg0, stack(4)] = count();
	@s[stack()] = sum(arg0);
}

END
{
	printa("block %d from:%k called %@d times\n", @);
	printa("%k%@d\n", @s);
}
