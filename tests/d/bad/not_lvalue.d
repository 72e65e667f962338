BEGIN
{
	1 = 2;
	(arg0 + 1)++;
}
