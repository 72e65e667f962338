/* A * width needs its own argument before the value. */
BEGIN
{
	printf("%s %*d\n", "foo");
}
