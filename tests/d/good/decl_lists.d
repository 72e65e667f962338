/* Several declarators in one declaration. */
int a, b, c;
self string first, last;
int tab[string], other[int, int];

BEGIN
{
	a = b + c;
	self->first = "x";
	self->last = self->first;
	tab["k"] = a;
	other[1, 2] = tab["k"];
}
