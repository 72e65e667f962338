/* flags: -q */
/* 64-bit arithmetic: wrap-around, signed and unsigned division, remainder and shifts */
int64_t big, small, x;
uint64_t umax, u;
BEGIN
{
	big = 9223372036854775807;
	small = -big - 1;
	umax = 0xffffffffffffffff;	/* a decimal this big has no type in D */
	printf("%d %d %u\n", big + 1, small - 1, umax + 1);
	printf("%d %d %d %d\n", -7 / 2, 7 / -2, -7 % 2, 7 % -2);
	printf("%u %u %u\n", umax / 2, umax % 10, umax / big);
	u = umax - 5;
	x = u;
	printf("%u %d %d %d\n", u / 3, x / 3, u > 5, x > 5);
	printf("%d %d %u\n", small / 2, small % 10, (uint64_t)small / 2);
	printf("%d %u %d %u\n", small >> 62, (uint64_t)small >> 62, big >> 62, big << 1);
	printf("%u %u %d\n", (uint64_t)1 << 63, umax << 63, ((int64_t)1 << 62) * 2);
	printf("%d %d\n", big * 2, small * -1);
	exit(0);
}
