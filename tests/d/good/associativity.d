/* Left-associative binary operators, right-associative assignment. */
BEGIN
{
	a = 10; b = 3; c = 2;
	r1 = a - b - c;		/* (a - b) - c */
	r2 = a / b / c;		/* (a / b) / c */
	r3 = a << b >> c;	/* (a << b) >> c */
	r4 = a - b + c;		/* (a - b) + c */
	a += b -= c;		/* a += (b -= c) */
}
