/* flags: -q */
BEGIN
{
	@q = quantize(0);
	@q = quantize(1);
	@q = quantize(2);
	@q = quantize(3);
	@q = quantize(1000);
	@q = quantize(-5);
	@single = quantize(64);
	exit(0);
}
