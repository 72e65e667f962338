fbt::bcache_read:entry
{
	trace(args[0]);
}
