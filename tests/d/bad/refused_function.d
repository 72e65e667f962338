BEGIN
{
	copyout(arg0, arg1, 4);
	@a = llquantize(arg0, 10, 0, 6, 20);
}
