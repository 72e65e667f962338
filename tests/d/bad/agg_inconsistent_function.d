BEGIN
{
	@a[execname] = count();
}

END
{
	@a[execname] = sum(1);
}
