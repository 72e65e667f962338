/* flags: -q */
BEGIN
{
	owner["disk"] = "virtio";
	owner["console"] = "uart";
	size["disk", 1] = 512;
	printf("%s %s [%s] %d\n", owner["disk"], owner["console"], owner["net"],
	    size["disk", 1]);
	exit(0);
}
