/* The increment of quantize( ) and lquantize( ) (a weight) is an integer; lquantize takes five arguments at most. */
fbt::bcache_read:entry
{
	@weighted[execname] = quantize(arg1, "two");
}
fbt::bcache_read:entry
{
	@lin = lquantize(arg0, 0, 100, 10, execname);
}
fbt::bcache_read:entry
{
	@six = lquantize(arg0, 0, 100, 10, 1, 2);
}
