/* flags: -q */
BEGIN
{
	a[1] = 10;
	a[2] = 20;
	b["x", 1] = 100;
	b["x", 2] = 200;
	b["y", 1] = 300;
	c["k"] = "value";
	printf("%d %d %d %d %d %d\n", a[1], a[2], a[3], b["x", 1], b["x", 2], b["y", 1]);
	printf("%s [%s]\n", c["k"], c["missing"]);
	a[1] = 0;
	printf("deleted: %d\n", a[1]);
	exit(0);
}
