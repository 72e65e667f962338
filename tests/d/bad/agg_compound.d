BEGIN
{
	@a += 1;
}
