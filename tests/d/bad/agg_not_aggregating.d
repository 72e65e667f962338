BEGIN
{
	@a = strlen("x");
}
