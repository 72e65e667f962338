/* flags: -q */
/* avg() and stddev() of known sets: integer results, negative values, and printa's %@d of a
   negative average (dtrace divides the sum unsigned there, unlike the default output) */
BEGIN
{
	@a["2 4 4 4 5 5 7 9"] = avg(2); @a["2 4 4 4 5 5 7 9"] = avg(4);
	@a["2 4 4 4 5 5 7 9"] = avg(4); @a["2 4 4 4 5 5 7 9"] = avg(4);
	@a["2 4 4 4 5 5 7 9"] = avg(5); @a["2 4 4 4 5 5 7 9"] = avg(5);
	@a["2 4 4 4 5 5 7 9"] = avg(7); @a["2 4 4 4 5 5 7 9"] = avg(9);
	@sd["2 4 4 4 5 5 7 9"] = stddev(2); @sd["2 4 4 4 5 5 7 9"] = stddev(4);
	@sd["2 4 4 4 5 5 7 9"] = stddev(4); @sd["2 4 4 4 5 5 7 9"] = stddev(4);
	@sd["2 4 4 4 5 5 7 9"] = stddev(5); @sd["2 4 4 4 5 5 7 9"] = stddev(5);
	@sd["2 4 4 4 5 5 7 9"] = stddev(7); @sd["2 4 4 4 5 5 7 9"] = stddev(9);
	@a["1 2"] = avg(1); @a["1 2"] = avg(2);
	@sd["1 2"] = stddev(1); @sd["1 2"] = stddev(2);
	@a["-7 -9 -2"] = avg(-7); @a["-7 -9 -2"] = avg(-9); @a["-7 -9 -2"] = avg(-2);
	@sd["-7 -9 -2"] = stddev(-7); @sd["-7 -9 -2"] = stddev(-9); @sd["-7 -9 -2"] = stddev(-2);
	@a["1000000"] = avg(1000000);
	@sd["1000000"] = stddev(1000000);
	@neg = avg(-10);
	@neg = avg(-20);
	printa("%-16s avg %@d stddev %@d\n", @a, @sd);
	printa("printa: %@d\n", @neg);
	printa(@neg);
	exit(0);
}
