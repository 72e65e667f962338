/* The anonymous aggregation without keys. */
fbt::bcache_read:entry
{
	@ = sum(arg1);
}

END
{
	printa("%@d bytes\n", @);
}
