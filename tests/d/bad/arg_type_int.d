BEGIN
{
	@a = sum(execname);
}
