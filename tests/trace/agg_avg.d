/* flags: -q */
/* run: bcache run seq n=40 start=100 */
fbt::bcache_read:entry
{
	@mean = avg(arg0);
	@sd = stddev(arg0);
	@mean_by[arg0 / 10] = avg(arg0);
}
