/* flags: -q -x dynvarsize=4096 */
/* run: bcache run seq n=100 start=100 */
fbt::bcache_read:entry
{
	seen[arg0] = 1;
}
