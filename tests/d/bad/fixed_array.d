/* Fixed-size array and struct variables: what D refuses of them. */
int a[10];
self int per_thread[2];
int huge[5000];
struct later;
struct later incomplete;

BEGIN
{
	a[10] = 1;
	trace(a[-1]);
	a = 1;
	this->n = a;
}
