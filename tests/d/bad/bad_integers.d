BEGIN
{
	trace(09);
	trace(0x);
	trace(123abc);
	trace(99999999999999999999);
	trace(1.5);
}
