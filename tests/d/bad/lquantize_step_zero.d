BEGIN
{
	@a = lquantize(arg0, 0, 100, 0);
}
