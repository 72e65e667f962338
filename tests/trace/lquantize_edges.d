/* flags: -q */
/* lquantize() at and beyond its bounds, a step that does not divide the range, negative
   ranges, and printa() with a key around the histogram */
BEGIN
{
	@edge = lquantize(0, 0, 10, 5);
	@edge = lquantize(4, 0, 10, 5);
	@edge = lquantize(5, 0, 10, 5);
	@edge = lquantize(9, 0, 10, 5);
	@edge = lquantize(10, 0, 10, 5);
	@edge = lquantize(-1, 0, 10, 5);
	@edge = lquantize(1000, 0, 10, 5);
	@uneven = lquantize(7, 0, 10, 3);
	@uneven = lquantize(9, 0, 10, 3);
	@uneven = lquantize(10, 0, 10, 3);
	@neg = lquantize(-25, -30, -10, 10);
	@neg = lquantize(-10, -30, -10, 10);
	@neg = lquantize(-10, -30, -10, 10);
	@k["over"] = lquantize(500, 0, 100, 10);
	@k["under"] = lquantize(-500, 0, 100, 10);
	@k["under"] = lquantize(-1, 0, 100, 10);
	printa("edge:%@d", @edge);
	printa("uneven:%@d", @uneven);
	printa("neg:%@d", @neg);
	printa("[%s]%@d", @k);
	exit(0);
}
