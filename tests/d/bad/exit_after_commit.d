BEGIN
{
	commit(1);
	exit(0);
}
