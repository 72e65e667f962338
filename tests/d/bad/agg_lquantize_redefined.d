BEGIN
{
	@a = lquantize(arg0, 0, 100, 10);
	@a = lquantize(arg0, 0, 100, 5);
}
