/* flags: -q */
BEGIN
{
	/* after 2020-01-01 and before 2100-01-01 */
	printf("%d\n", walltimestamp > 1577836800000000000 && walltimestamp < 4102444800000000000);
	exit(0);
}
