/* flags: -q */
uint64_t big;
BEGIN
{
	big = 0xffffffffffffffff;
	printf("%u %d\n", big / 2, big > 1);
	printf("%x %x\n", big >> 60, (int64_t)big >> 60);
	printf("%u\n", big % 10);
	exit(0);
}
