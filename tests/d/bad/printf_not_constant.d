BEGIN
{
	printf(execname);
}
