/* no printa( ) conversion prints a stack key (dtrace's %k is not supported) */
fbt::bcache_read:entry
{
	@[stack(), arg0] = count();
}
END
{
	printa("%d %d %@d\n", @);
}
