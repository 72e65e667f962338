BEGIN
{
	trace(arg0 ? 1 : "one");
}
