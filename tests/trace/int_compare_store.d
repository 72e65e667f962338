/* flags: -q */
/*
 * Comparisons convert both operands to their common type first, so
 * -1 < (uint32_t)1 compares unsigned and is false, as in C and dtrace.
 * Stores into narrower variables (global, self->, this->, an associative
 * array's value) keep the variable's width and signedness, and so do
 * op= and ++ on them.
 */
int8_t g;
self uint16_t t;
this uint8_t c;
uint8_t a[int];
BEGIN
{
	printf("%d %d %d %d\n", -1 < (uint32_t)1, (uint32_t)-1 > 1, -1 < 1, (uint64_t)0 > -1);
	printf("%d %d\n", (int64_t)(uint32_t)-1 > 0, 2147483648 > (int)-1);
	g = 200;
	self->t = 70000;
	this->c = -1;
	a[1] = 257;
	printf("%d %d %d %d\n", g, self->t, this->c, a[1]);
	g += 100;
	self->t -= 70001;
	this->c++;
	a[1] *= 300;
	printf("%d %d %d %d\n", g, self->t, this->c, a[1]);
	exit(0);
}
