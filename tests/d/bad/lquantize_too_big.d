BEGIN
{
	@a = lquantize(arg0, 0, 0x100000000);
}
