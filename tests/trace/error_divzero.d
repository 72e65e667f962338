BEGIN
{
	x = 0;
	trace(10 / x);
}
BEGIN
{
	trace("next clause still runs");
	exit(0);
}
