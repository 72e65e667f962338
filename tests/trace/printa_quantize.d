/* flags: -q */
BEGIN
{
	@q["small"] = quantize(3);
	@q["big"] = quantize(300);
	printa("key %s:%@d\n", @q);
	exit(0);
}
