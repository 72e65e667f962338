/* lquantize: constant bounds, an optional step, constant expressions. */
fbt::bcache_read:entry
{
	@a = lquantize(arg0, 0, 100);
	@b = lquantize(arg0, 0, 100, 10);
	@c[execname] = lquantize(arg1, -50, 50, 5);
	@d = lquantize(arg2, -(1 << 10), 1024 * 2, 16 * 4);
}

fbt::bcache_read:return
{
	@b = lquantize(arg1, 0, 100, 10);
}
