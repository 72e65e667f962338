BEGIN
{
	@ = llquantize(arg0, 10, 2, 6, 80);
}
