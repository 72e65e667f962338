/* Fixed-size array and struct variables: what D refuses of them. */
int a[10];
struct later by_key[int];
int huge[5000];
struct later;
struct later incomplete;
struct sample { int n; };
struct sample samples[int];
self struct sample mine;

BEGIN
{
	a[10] = 1;
	trace(a[-1]);
	a = 1;
	this->n = a;
	samples[1] = 0;
	self->mine = 0;
}
