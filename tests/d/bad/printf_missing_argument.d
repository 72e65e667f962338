BEGIN
{
	printf("%d %s\n", 1);
}
