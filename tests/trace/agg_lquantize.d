/* flags: -q */
/* run: bcache run seq n=40 start=100 */
fbt::bcache_read:entry
{
	@l = lquantize(arg0, 100, 140, 10);
	@under = lquantize(arg0, 200, 300, 50);
	@keyed[arg0 < 120 ? "low" : "high"] = lquantize(arg0, 100, 140, 20);
}
