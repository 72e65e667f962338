BEGIN
{
	trace(*arg0);
}
