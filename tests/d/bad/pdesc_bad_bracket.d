fbt::bcache_[ab:entry
{
}
