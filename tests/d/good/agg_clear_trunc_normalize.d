/* The aggregation actions. */
fbt::bcache_read:entry
{
	@calls[execname] = count();
}

tick-1s
{
	normalize(@calls, 1000);
	printa(@calls);
	denormalize(@calls);
	trunc(@calls, 5);
	trunc(@calls);
	clear(@calls);
}
