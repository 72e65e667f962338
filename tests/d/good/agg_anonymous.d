/* The anonymous aggregation @, with keys; every bare @ is the same one. */
fbt::bcache_read:entry
{
	@[probefunc] = count();
}

fbt::bcache_evict:entry
{
	@[probefunc] = count();
}
