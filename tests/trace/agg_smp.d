/* flags: -q */
/* smp: 2 */
/* run: bcache run seq n=40 start=100 */
fbt::bcache_read:entry
{
	@n = count();
	@s = sum(arg0);
}
