/* %ld takes a long (int64_t): an int does not do, as in dtrace. */
BEGIN
{
	printf("%ld\n", 1);
}
