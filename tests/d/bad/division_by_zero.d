BEGIN
{
	x = 1;
	trace(x / 0);
	trace(10 % (5 - 5));
}
