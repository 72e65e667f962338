/* A global must be assigned before it is read, in source order. */
BEGIN
{
	trace(later);
}

END
{
	later = 1;
}
