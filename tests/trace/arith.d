/* flags: -q */
BEGIN
{
	printf("%d %d %d %d\n", 1 + 2 * 3, (1 + 2) * 3, 7 / 2, -7 / 2);
	printf("%d %d %d\n", 7 % 3, -7 % 3, 1 << 10);
	printf("%d %d %d\n", -16 >> 2, 0xf0 & 0x3c, 0xf0 | 0x0f);
	printf("%d %d %d %d\n", 5 ^ 3, ~0, !0, !5);
	printf("%d %d %d %d %d %d\n", 1 < 2, 2 <= 1, 3 > 2, 3 >= 4, 5 == 5, 5 != 5);
	x = 10;
	x += 5; x -= 3; x *= 2; x /= 4; x %= 4; x <<= 3; x |= 1; x &= 0xff; x ^= 2;
	printf("%d\n", x);
	printf("%d %d\n", x++, ++x);
	printf("%d %d\n", x--, --x);
	exit(0);
}
