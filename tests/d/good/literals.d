/* Integer literals in every base with suffixes, characters, escapes. */
BEGIN
{
	trace(0);
	trace(42);
	trace(0x2A);
	trace(052);
	trace(42u);
	trace(42l);
	trace(42ul);
	trace(42LL);
	trace(42ull);
	trace(18446744073709551615u);
	trace(0xffffffffffffffff);
	trace(2147483648);
	trace('a');
	trace('\n');
	trace('\x41');
	trace('\101');
	trace('\'');
	trace("tab\there, quote \" and backslash \\");
	trace("\a\b\f\v\r\?\0end");
	trace("");
}
