/* %c takes a char, short or int, not a 64-bit integer. */
BEGIN
{
	printf("%c\n", arg0);
}
