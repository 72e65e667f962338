/* Indexing an integer expression is *(integer), as in dtrace. */
BEGIN
{
	trace((arg0 + 1)[2]);
}
