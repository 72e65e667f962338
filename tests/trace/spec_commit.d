/* flags: -q */
/* run: bcache run seq n=6 start=100 */
fbt::bcache_read:entry
{
	self->spec = speculation();
	speculate(self->spec);
	printf("speculative %d\n", arg0);
}
fbt::bcache_read:entry
/arg0 % 2 == 0/
{
	commit(self->spec);
}
fbt::bcache_read:entry
/arg0 % 2 == 1/
{
	discard(self->spec);
}
