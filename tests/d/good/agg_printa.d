/* printa with and without formats; keys and %@ in order. */
fbt::bcache_read:entry
{
	@calls[execname, cpu] = count();
	@bytes[execname, cpu] = sum(arg1);
}

END
{
	printa(@calls);
	printa("%-16s %3d %@10d\n", @calls);
	printa("%s %d calls %@d bytes %@d\n", @calls, @bytes);
	printa("%s\n", @calls);
}
