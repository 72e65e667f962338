/* flags: -q */
int n;
tick-10ms
/++n == 5/
{
	printf("tick fired %d times\n", n);
	exit(0);
}
