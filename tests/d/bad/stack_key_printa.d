/* a stack key prints with %k only: %d of it is refused */
fbt::bcache_read:entry
{
	@[stack(), arg0] = count();
}
END
{
	printa("%d %d %@d\n", @);
}
