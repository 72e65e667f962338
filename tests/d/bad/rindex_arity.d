BEGIN
{
	trace(rindex("abc"));
}
