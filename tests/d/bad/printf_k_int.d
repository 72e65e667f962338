/* %k prints a stack() key of printa; no other value is a stack */
BEGIN
{
	printf("%k\n", 1);
}
