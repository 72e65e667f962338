BEGIN
{
	@a[execname] = count();
	printa("%d %@d\n", @a);
}
