/* Every compound assignment operator. */
BEGIN
{
	x = 100;
	x += 1;
	x -= 2;
	x *= 3;
	x /= 4;
	x %= 5;
	x &= 6;
	x |= 7;
	x ^= 8;
	x <<= 1;
	x >>= 2;
	a[1] = 0;
	a[1] += x;
	self->n = 1;
	self->n <<= 3;
}
