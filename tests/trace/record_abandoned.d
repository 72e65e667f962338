/* flags: -q */
/*
 * A clause that records a value and then faults: its record, which the
 * kernel builds in place in the principal buffer, is abandoned whole (the
 * error record takes its room), so 111 is never printed, and the next
 * clause's record of the same firing is intact.
 */
int n;
tick-10ms
/n < 3/
{
	n++;
	trace(111);
	trace(*(int *)0);
}
tick-10ms
/n <= 3/
{
	printf("after %d\n", n);
}
tick-10ms
/n == 3/
{
	exit(0);
}
