/* flags: -q */
/* args: 5 hello */
BEGIN
{
	printf("%d %s\n", $1 * 2, $$2);
	exit(0);
}
