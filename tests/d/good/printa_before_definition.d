/* printa may come before the clause that fills its aggregation. */
tick-1s
{
	printa("%a %@d\n", @where);
	clear(@where);
}

fbt::bcache_read:entry
{
	@where[func(arg0)] = count();
}
