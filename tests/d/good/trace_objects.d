/* trace() of a struct or array records its bytes; a char array is a string. */
struct pair {
	int a;
	short b[3];
	char tag[6];
};

struct pair p;
long history[4];

BEGIN
{
	p.a = 1;
	trace(p);
	trace(p.b);
	trace(p.tag);
	trace(history);
	trace(*(struct pair *)arg0);
	trace(((struct pair *)arg0)->b);
}
