/* flags: -q */
/* status: 3 */
/* run: bcache run seq n=10 start=100 */
/* exit() in a predicated clause: the clauses before it in that firing ran, the ones after it
   and every later firing do not; END runs and sees the totals */
int before, after;
fbt::bcache_read:entry
{
	before++;
	@seen = count();
}
fbt::bcache_read:entry
/arg0 == 104/
{
	printf("exit at %d\n", arg0);
	exit(3);
}
fbt::bcache_read:entry
{
	after++;
}
END
{
	printf("before %d, after %d\n", before, after);
	printa("aggregated %@d\n", @seen);
}
