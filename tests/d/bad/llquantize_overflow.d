BEGIN
{
	@ = llquantize(arg0, 10, 0, 18, 20);
}
