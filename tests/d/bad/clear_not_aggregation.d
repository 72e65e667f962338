BEGIN
{
	x = 1;
	clear(x);
}
