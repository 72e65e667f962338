BEGIN
{
	copyout(arg0, arg1, 4);
	@a = umod(arg0);
}
