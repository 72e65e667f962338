/* The last statement of a clause needs no ';'. */
BEGIN
{
	x = 1;
	trace(x)
}

END { trace(2); trace(3) }
