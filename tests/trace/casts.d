/* flags: -q */
BEGIN
{
	printf("%d %d %d\n", (int8_t)255, (uint8_t)256, (int16_t)65535);
	printf("%d %d\n", (int32_t)4294967295, (uint32_t)-1);
	printf("%d %d\n", (uint64_t)-1 > 0, (int64_t)-1 > 0);
	x = (uint16_t)70000;
	printf("%d\n", x);
	exit(0);
}
