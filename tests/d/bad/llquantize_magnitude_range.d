BEGIN
{
	@ = llquantize(arg0, 10, 6, 6, 20);
}
