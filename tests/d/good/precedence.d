/* C's precedence: each expression below parses as its comment says. */
BEGIN
{
	a = 1; b = 2; c = 3; d = 4;
	r1 = a + b * c;		/* a + (b * c) */
	r2 = (a + b) * c;
	r3 = a << b + c;	/* a << (b + c) */
	r4 = a & b == c;	/* a & (b == c) */
	r5 = a || b && c;	/* a || (b && c) */
	r6 = a | b ^ c & d;	/* a | (b ^ (c & d)) */
	r7 = a ^^ b || c;	/* (a ^^ b) || c */
	r8 = a && b ^^ c;	/* (a && b) ^^ c */
	r9 = a < b == c > d;	/* (a < b) == (c > d) */
	r10 = -a * ~b;		/* (-a) * (~b) */
	r11 = !a + b;		/* (!a) + b */
	r12 = a ? b : c ? d : a; /* a ? b : (c ? d : a) */
	r13 = a = b = c;	/* a = (b = c) */
	r14 = a % b / c * d;	/* ((a % b) / c) * d */
}
