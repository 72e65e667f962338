/* flags: -q */
BEGIN
{
	@a["x"] = count();
	@a["y"] = count();
	@a["y"] = count();
	printa("before: %s %@d\n", @a);
	clear(@a);
	printa("after: %s %@d\n", @a);
	exit(0);
}
