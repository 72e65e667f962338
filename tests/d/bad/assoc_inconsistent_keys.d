BEGIN
{
	a[1] = 1;
	a["x"] = 2;
}
