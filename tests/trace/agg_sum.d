/* flags: -q */
/* run: bcache run seq n=40 start=100 */
fbt::bcache_read:entry
{
	@total = sum(arg0);
	@by_parity[arg0 % 2 ? "odd" : "even"] = sum(arg0);
}
