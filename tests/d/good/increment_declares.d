/*
 * ++, -- and op= make an undeclared global or global associative array,
 * an int64, as dtrace does: counters without a declaration.
 */
fbt:::entry
{
	n[probefunc]++;
	calls++;
	bytes += arg1;
	left--;
}
END
{
	printf("%d %d %d %d\n", calls, bytes, n["bcache_read"], left);
}
