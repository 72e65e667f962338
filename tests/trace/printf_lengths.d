/* flags: -q */
/* A value prints at its type's width; h, l and ll conversions take arguments of their size */
int8_t c;
uint8_t uc;
int16_t h;
uint16_t uh;
int32_t i;
uint32_t u;
int64_t l;
uint64_t ul;
BEGIN
{
	c = -1; uc = 255; h = -2; uh = 65534; i = -3; u = 4294967293; l = -4;
	ul = 18446744073709551612;
	printf("%d %d %d %d %d %d %d %d\n", c, uc, h, uh, i, u, l, ul);
	printf("%x %x %x %x %x %x %x %x\n", c, uc, h, uh, i, u, l, ul);
	printf("%u %u %u %o %X\n", c, h, i, c, i);
	printf("%hd %hi %hu %ho %hx %hX\n", h, h, uh, uh, h, uh);
	printf("%ld %li %lu %lo %lx %lX\n", l, l, ul, ul, l, ul);
	printf("%lld %lli %llu %llo %llx %llX\n", l, l, ul, ul, l, ul);
	printf("[%8hd] [%-8lx] [%016llx] [%+ld]\n", h, l, ul, l);
	exit(0);
}
