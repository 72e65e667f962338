/* flags: -q */
/*
 * printa() formats as dtrace reads them: '@' anywhere among a
 * conversion's flags and width (%10@d, %-10@u), more %@ conversions than
 * aggregations printing the last aggregation's value again, a format
 * printing fewer keys than the aggregation has, and a key as a * width.
 */
BEGIN
{
	@a = count();
	@b = sum(5);
	@c["x", 7] = sum(3);
	@d["x", 7] = count();
	@w[10, 100] = sum(1);
	@w[-10, 200] = sum(2);
	printa("%@u %@u %@u\n", @a);
	printa("[%10@d] [%-10@u] [%0-6@d] [%@5d]\n", @b);
	printa("%s %@d %@d %@d\n", @c, @d);
	printa("%s and %@d\n", @c);
	printa("-->%*d<--\n", @w);
	exit(0);
}
