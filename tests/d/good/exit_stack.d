/* exit(), stack() and stack(n). */
fbt::bcache_read:entry
{
	stack();
	stack(5);
}

tick-5s
{
	exit(0);
}

END
{
	exit(arg0 + 1);
}
