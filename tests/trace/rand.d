/* flags: -q */
BEGIN
{
	a = rand();
	b = rand();
	printf("%d\n", a != b);
	exit(0);
}
