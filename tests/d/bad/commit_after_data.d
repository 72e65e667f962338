BEGIN
{
	trace(1);
	discard(1);
}
