BEGIN
{
	trace(strlen);
}
