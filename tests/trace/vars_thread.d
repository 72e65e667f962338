/* flags: -q */
/* run: bcache run seq n=20 start=100 */
fbt::bcache_read:entry
{
	self->block = arg0;
	self->depth++;
}
fbt::bcache_read:return
/self->depth/
{
	@blocks = sum(self->block);
	@calls = count();
	self->depth--;
	self->block = 0;
}
END
{
	printa("blocks %@d\n", @blocks);
	printa("paired calls %@d\n", @calls);
}
