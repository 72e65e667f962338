/* flags: -q */
BEGIN
{
	printf("%d %i %u %x %X %o|\n", -42, 42, 42, 255, 255, 8);
	printf("[%5d] [%-5d] [%05d] [%+d] [%x] [%#x] [%#o]\n", 42, 42, 42, 42, -1, 255, 8);
	printf("[%s] [%10s] [%-10s] [%.3s] [%c] %%\n", "abc", "abc", "abc", "abcdef", 65);
	printf("[%*d] [%-*d] [%.*s]\n", 6, 7, 6, 7, 2, "xyz");
	printf("%d %d %d\n", (char)300, (short)70000, (unsigned char)-1);
	printf("%lld %llu %ld\n", 9223372036854775807LL, 18446744073709551615ULL, -1L);
	exit(0);
}
