/* quantize of an expression (with an increment: see tests/trace/agg_weighted.d). */
fbt::bcache_read:entry
{
	@sizes = quantize(arg1);
	@by_name[execname] = quantize(arg1 * 2);
}
