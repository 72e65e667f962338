/* flags: -q */
/* run: bcache run seq n=3 start=100 */
/* stack(N) prints N frames as module`symbol+0xoffset under the default indent; at fbt entry
   and return the stack starts at the caller (bcache_workload_run calls bcache_read), as in
   DTrace; the offsets change from build to build, so stack_frames.out.re matches them by
   pattern */
fbt::bcache_read:entry
/arg0 == 101/
{
	printf("frames of %d:", arg0);
	stack(2);
	printf("one frame:");
	stack(1);
	self->traced = 1;
}

fbt::bcache_read:return
/self->traced/
{
	printf("at return:");
	stack(1);
	self->traced = 0;
}
