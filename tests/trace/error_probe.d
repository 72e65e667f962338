/* flags: -q */
BEGIN
{
	y = 0;
	printf("%d\n", 5 % y);
}
ERROR
{
	printf("ERROR: epid %d action %d fault %d\n", arg1, arg2, arg4);
}
BEGIN
{
	exit(0);
}
