/* Commas at the top of a statement separate statements; in parentheses they are operators. */
BEGIN
{
	a = 1, b = 2, @c = count();
	x = (a, b);
	trace(x), trace(a + b);
}
