BEGIN
{
	@a = count();
	commit(1);
}
