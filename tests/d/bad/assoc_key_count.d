int a[int, string];

BEGIN
{
	a[1] = 2;
}
