/* flags: -q */
/* run: bcache run seq n=3 start=100 */
/* stack(N) prints N frames as module`symbol+0xoffset under the default indent; the offsets
   change from build to build, so stack_frames.out.re matches them by pattern */
fbt::bcache_read:entry
/arg0 == 101/
{
	printf("frames of %d:", arg0);
	stack(2);
	printf("one frame:");
	stack(1);
}
