/* quantize of an expression (with an increment: see bad/agg_quantize_increment.d). */
fbt::bcache_read:entry
{
	@sizes = quantize(arg1);
	@by_name[execname] = quantize(arg1 * 2);
}
