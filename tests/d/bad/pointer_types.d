/* Pointers to strings, and more levels than the compiler keeps. */
BEGIN
{
	trace((string *)arg0);
}
BEGIN
{
	trace((int *********)arg0);
}
