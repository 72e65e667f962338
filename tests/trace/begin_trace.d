/* The default output: a header, then CPU, probe id and name, then the data. */
BEGIN
{
	trace(42);
	trace("forty-two");
	exit(0);
}
