/* Constant expressions are folded in their type: an int unless too big, as in dtrace. */
BEGIN
{
	trace(1 + 2 * 3);
	trace(-1);
	trace(~0);
	trace(!0);
	trace(!5);
	trace(1 << 62);
	trace(7 / 2);
	trace(-7 / 2);
	trace(-7 % 2);
	trace(10 > 3);
	trace(-1 < 0);
	trace(-1 < 0u);
	trace(0xffffffffffffffff);
	trace(0x7fffffffffffffff + 1);
	trace(-8 >> 1);
	trace(0xf0u >> 4);
	trace(1 ? 2 : 3);
	trace((1, 2));
	trace(3 ^^ 0);
	trace(2 && 0 || 1);
}
