BEGIN
{
	x = 10;
	@a = lquantize(arg0, 0, x);
}
