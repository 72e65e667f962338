BEGIN
{
	printf("%s\n", timestamp);
}
