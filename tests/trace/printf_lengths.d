/* flags: -q */
/*
 * A value prints at its type's width; a size prefix names a C type, as in
 * dtrace: h a short, l a long (int64_t, uint64_t), ll a long long, and
 * %llx also takes int64_t and uint64_t.
 */
int8_t c;
uint8_t uc;
int16_t h;
uint16_t uh;
int32_t i;
uint32_t u;
int64_t l;
uint64_t ul;
long long ll;
unsigned long long ull;
BEGIN
{
	c = -1; uc = 255; h = -2; uh = 65534; i = -3; u = 4294967293; l = -4;
	ul = 0xfffffffffffffffc; ll = l; ull = ul;
	printf("%d %d %d %d %d %d %d %d\n", c, uc, h, uh, i, u, l, ul);
	printf("%x %x %x %x %x %x %x %x\n", c, uc, h, uh, i, u, l, ul);
	printf("%u %u %u %o %X\n", c, h, i, c, i);
	printf("%hd %hi %hu %ho %hx %hX\n", h, h, uh, uh, h, uh);
	printf("%ld %li %lu %lo %lx %lX\n", l, l, ul, ul, l, ul);
	printf("%lld %lli %llu %llo %llx %llX\n", ll, ll, ull, ull, ll, ull);
	printf("[%8hd] [%-8lx] [%016llx] [%+ld] [%llx]\n", h, l, ul, l, l);
	exit(0);
}
