BEGIN
{
	@a = lquantize(arg0, 0, 10, 20);
}
