/* flags: -q */
/*
 * Integers narrower than 64 bits, as dtrace has them: an operator
 * computes in the operand type of higher rank (int for int and int,
 * unsigned int when one is, char for two chars: no promotion to int),
 * the result is recorded at that type's width and printed by its size
 * and signedness, so int arithmetic wraps at 32 bits. Unsigned division,
 * remainder and right shift stay unsigned.
 */
int32_t i;
uint32_t u;
int8_t c;
uint16_t h;
BEGIN
{
	i = 2147483647;
	u = 4294967295;
	c = 127;
	h = 65535;
	printf("%d %d %d\n", i + 1, i * 2, -i - 2);
	printf("%u %d %u\n", u + 1, u * 2, ~u);
	printf("%d %d %d %d\n", c + 1, c + c, h + 1, h + h);
	printf("%u %u %u %d\n", u / 2, u % 10, u >> 28, (int32_t)-16 >> 2);
	printf("%d %d\n", i / -1, (int32_t)0x80000000 / 2);
	printf("%d %d %d\n", 1 << 31, 1 << 32, 0x7fffffff + 1);
	printf("%d %d\n", (uint8_t)250 + (uint8_t)10, (int16_t)-32768 - (int16_t)1);
	exit(0);
}
