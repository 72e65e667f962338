/* flags: -q */
BEGIN
{
	@s = sum(-5);
	@s = sum(2);
	@a = avg(-10);
	@a = avg(-20);
	@m = max(-3);
	@m = max(-9);
	@l = lquantize(-3, -10, 10, 5);
	@l = lquantize(7, -10, 10, 5);
	@l = lquantize(-20, -10, 10, 5);
	exit(0);
}
