// options: destructive
BEGIN
{
	panic(1);
}
