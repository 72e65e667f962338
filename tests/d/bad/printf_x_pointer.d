/* %x takes integers only: print a pointer with %p. */
BEGIN
{
	printf("%x\n", (int *)arg0);
}
