/* flags: -q */
/* run: bcache run seq n=20 start=100 */
fbt::bcache_read:entry
/arg0 >= 110 && arg0 < 115/
{
	printf("%d\n", arg0);
}
