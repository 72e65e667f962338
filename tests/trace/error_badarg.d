/* flags: -q */
BEGIN
{
	printf("[%s]\n", substr("abc", 1000000));
	printf("[%s]\n", substr("abc", -1000000, 2));
	printf("%d\n", index("abc", "c", 1000000));
	printf("[%s]\n", lltostr(10, 1));
}
BEGIN
{
	exit(0);
}
