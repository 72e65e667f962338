/* A decimal constant above LONG_MAX has no type in D (dtrace): write 0x... or add u. */
BEGIN
{
	trace(18446744073709551615);
}
