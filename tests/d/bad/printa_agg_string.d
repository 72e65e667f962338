/* count()'s value is a uint64_t: %@s cannot print it. */
BEGIN
{
	@a = count();
	printa("%@s\n", @a);
}
