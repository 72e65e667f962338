// options: destructive
BEGIN
{
	raise("KILL");
}
