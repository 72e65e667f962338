/* NULL is built in: it cannot be assigned */
BEGIN
{
	NULL = 1;
}
