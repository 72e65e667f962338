/* dtrace has no hh size prefix: %hhd is an undefined conversion. */
BEGIN
{
	printf("%hhd\n", 1);
}
