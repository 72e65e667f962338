/* 64-bit unsigned operands make the operation unsigned. */
BEGIN
{
	u = timestamp;
	s = arg0;
	trace(u - s);
	trace(s - 1);
	trace(u / 2);
	trace(s / 2);
	trace(u > s);
	trace((uint32_t)s + 1);
	trace(-u);
	trace(u >> 1);
	trace(s >> 1);
}
