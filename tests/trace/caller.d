/* flags: -q */
/* run: bcache run seq n=3 start=100 */
/*
 * caller at fbt entry: the return address into the caller (bcache_workload_run
 * calls bcache_read), as the first frame of stack() there; the same at the
 * function's return. Printed with %a, func() and sym(); checked against the
 * caller's own address from the kernel's symbol list (`name). The offset
 * changes from build to build, so caller.out.re matches it by pattern.
 */
fbt::bcache_read:entry
/arg0 == 101/
{
	self->caller = caller;
	printf("%a\n", caller);
	trace(func(caller));
	printf("|\n");
	trace(sym(caller));
	printf("|\n");
	printf("inside bcache_workload_run: %d\n",
	    caller > `bcache_workload_run && caller < `bcache_workload_run + 0x1000);
	stack(1);
}
fbt::bcache_read:return
/self->caller/
{
	printf("return: %d\n", caller == self->caller);
	self->caller = 0;
}
