BEGIN
{
	trace(copyinstr(arg0));
	@a = llquantize(arg0, 10, 0, 6, 20);
}
