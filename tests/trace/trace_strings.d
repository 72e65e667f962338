BEGIN
{
	trace("a");
	trace(strjoin("b", "c"));
	exit(0);
}
