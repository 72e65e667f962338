/* flags: -q */
int n, m;
tick-10ms
/m++ < 3/
{
	@ticks = count();
}
tick-100ms
/++n == 2/
{
	printa("printed, then not again at exit: %@d\n", @ticks);
	clear(@ticks);
	exit(0);
}
