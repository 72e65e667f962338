BEGIN
{
	trace(strjoin("a"));
}
