/* Positional conversions (%n$) are not supported, as in dtrace. */
BEGIN
{
	printf("%1$d\n", 1);
}
