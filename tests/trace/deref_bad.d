/* flags: -q */
/*
 * Loads from addresses that do not read: each firing reports one error
 * line (invalid address or invalid alignment, with the address) and
 * tracing goes on: later clauses and END still run.
 */
int n;
BEGIN
{
	trace(*(int *)0);
}
BEGIN
{
	trace(*(uint64_t *)0x8000000000000000);
}
BEGIN
{
	/* the lower half is unmapped once the kernel has booted */
	trace(*(char *)0x10000);
}
BEGIN
{
	trace(*(int *)0x1002);
}
BEGIN
{
	printf("BEGIN goes on after the errors\n");
}
tick-10ms
/n < 3/
{
	n++;
	printf("%d\n", **(long **)8);
}
tick-10ms
/n == 3/
{
	exit(0);
}
END
{
	printf("END: %d firings faulted, tracing went on\n", n);
}
