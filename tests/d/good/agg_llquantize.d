/* llquantize: factor, low and high magnitudes, steps per magnitude; weighted. */
fbt::bcache_read:entry
{
	@a = llquantize(arg0, 10, 0, 6, 20);
	@b[execname] = llquantize(arg1, 2, 0, 16, 4);
	@c = llquantize(arg2, 10, 1, 3, 100, arg1 & 3);
}

fbt::bcache_read:return
{
	@a = llquantize(arg1, 10, 0, 6, 20);
}
