/* a stack() key records at most 64 frames */
fbt::bcache_read:entry
{
	@[stack(65)] = count();
}
