/* an aggregation's stack() keys all have one depth */
fbt::bcache_read:entry
{
	@[stack(2)] = count();
}
fbt::bcache_read:return
{
	@[stack(3)] = count();
}
