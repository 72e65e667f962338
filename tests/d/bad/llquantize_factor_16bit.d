BEGIN
{
	@ = llquantize(arg0, 65536, 0, 6, 20);
}
