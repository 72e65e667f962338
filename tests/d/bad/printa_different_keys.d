BEGIN
{
	@a[1] = count();
	@b["one"] = count();
}

END
{
	printa("%d %@d %@d\n", @a, @b);
}
