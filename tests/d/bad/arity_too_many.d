BEGIN
{
	trace(strlen("a", "b"));
}
