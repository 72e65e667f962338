/* Pointer arithmetic as C has it: pointer ± integer, and the difference of two alike. */
BEGIN
{
	trace((void *)arg0 + 1);
	trace((int *)arg0 + (int *)arg1);
	trace((int *)arg0 - (char *)arg1);
	trace(1 - (int *)arg0);
	trace((int *)arg0 * 2);
}
