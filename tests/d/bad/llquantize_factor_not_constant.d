BEGIN
{
	factor = 10;
	@ = llquantize(arg0, factor, 0, 6, 20);
}
