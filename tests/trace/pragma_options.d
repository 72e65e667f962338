/* run: bcache run seq n=4 start=100 */
/* Options set by #pragma instead of -q/-x: quiet drops the probe lines, so trace() output
   runs together; aggsortkey orders printa by key */
#pragma D option quiet
#pragma D option aggsortkey
fbt::bcache_read:entry
{
	trace(arg0);
	trace("-");
	@n[arg0 % 2 ? "odd" : "even"] = sum(arg0 % 2 ? 1 : 100);
}
END
{
	printf("\n");
	printa("%s %@d\n", @n);
}
