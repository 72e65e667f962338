/* flags: -q */
/* run: bcache run seq n=40 start=100 */
/*
 * Weighted quantize and lquantize: each value's bucket grows by the
 * increment instead of 1 (blocks 100..139: ten per lquantize level).
 * Unweighted aggregations beside them still count, sum and average.
 */
fbt::bcache_read:entry
{
	@weighted = quantize(arg0, 3);
	@by_block = lquantize(arg0, 100, 140, 10, arg0 - 99);
	@down[arg0 < 120 ? "low" : "high"] = lquantize(arg0, 100, 140, 20, -1);
	@plain = lquantize(arg0, 100, 140, 10);
	@n = count();
	@total = sum(arg0);
	@mean = avg(arg0);
}
