/* run: bcache run seq n=5 start=100 */
/*
 * stack() as an aggregation key: each distinct stack is one entry,
 * printed as dtrace prints stack keys (a newline, a frame a line under
 * the stack indent, the value after the last), and beside other keys.
 * Frame offsets change from build to build: agg_stack.out.re.
 */
fbt::bcache_read:entry
{
	@[stack(2)] = count();
	@depth[stack(1), probefunc] = sum(arg0 - 99);
}
