/* avg and stddev. */
fbt::bcache_read:return
{
	@mean[cpu] = avg(arg1);
	@spread[cpu] = stddev(arg1);
}
