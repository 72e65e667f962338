BEGIN
{
	trace("no end);
}
