/* strtoll takes a string and at most a base: a third argument is refused. */
BEGIN
{
	trace(strtoll("10", 16, 1));
}
