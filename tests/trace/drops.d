/* flags: -x bufsize=64 -x switchrate=60s */
/* run: bcache run seq n=40 start=100 */
fbt::bcache_read:entry
{
	trace(arg0);
}
