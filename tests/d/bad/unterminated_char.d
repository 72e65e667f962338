BEGIN
{
	trace('a);
}
