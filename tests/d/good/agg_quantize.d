/* quantize, and quantize with an increment (a weight). */
fbt::bcache_read:entry
{
	@sizes = quantize(arg1);
	@weighted[execname] = quantize(arg1, 2);
}
