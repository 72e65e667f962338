fbt:kernel:bcache_read:entry:extra
{
}
