/* sum()'s value is an int64_t (a long): %@lu wants an unsigned long. */
BEGIN
{
	@s = sum(1);
	printa("%@lu\n", @s);
}
