/* More key conversions than the aggregation has keys. */
BEGIN
{
	@a[1] = count();
	printa("%d %d %@d\n", @a);
}
