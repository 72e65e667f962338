/* quantize( ) with an increment (a weight): the object format has one value per quantize( ). */
fbt::bcache_read:entry
{
	@weighted[execname] = quantize(arg1, 2);
}
