/* One precision per conversion. */
BEGIN
{
	printf("%1.2.3d\n", 1);
}
