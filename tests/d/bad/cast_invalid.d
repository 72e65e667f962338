BEGIN
{
	trace((string)1);
	trace((int)"x");
}
