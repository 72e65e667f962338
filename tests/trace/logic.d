/* flags: -q */
int calls;
BEGIN
{
	printf("%d %d %d %d\n", 1 && 0, 1 || 0, 1 ^^ 1, 0 ^^ 1);
	a = 0 && (calls = 1);
	b = 1 || (calls = 2);
	printf("short-circuit: %d %d %d\n", a, b, calls);
	printf("%d %d\n", 3 > 2 ? 10 : 20, 3 < 2 ? 10 : 20);
	printf("%s\n", 1 ? "yes" : "no");
	exit(0);
}
