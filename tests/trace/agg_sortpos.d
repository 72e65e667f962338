/* flags: -q -x aggsortpos=1 */
/* aggsortpos=1: a printa of several aggregations orders by the second one's values */
BEGIN
{
	@calls["a"] = count(); @calls["a"] = count(); @calls["a"] = count();
	@calls["b"] = count();
	@calls["c"] = count(); @calls["c"] = count();
	@bytes["a"] = sum(10);
	@bytes["b"] = sum(30);
	@bytes["c"] = sum(20);
	printa("%s calls %@d bytes %@d\n", @calls, @bytes);
	printa("%s %@d\n", @calls);
	exit(0);
}
