BEGIN
{
	@ = llquantize(arg0, 10, arg1, 6, 20);
}
