BEGIN
{
	@a = lquantize(arg0, 100, 10);
}
