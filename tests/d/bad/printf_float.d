BEGIN
{
	printf("%f\n", 1);
}
