/* flags: -q */
/* run: bcache run seq n=10 start=100 */
/* Predicates on self-> variables: set on entry, tested and cleared on return, and a
   thread-local counter that limits a clause to the first three firings */
fbt::bcache_read:entry
/arg0 % 3 == 0/
{
	self->want = 1;
	self->blk = arg0;
}
fbt::bcache_read:entry
/self->seen < 3/
{
	self->seen++;
	printf("early %d (seen %d)\n", arg0, self->seen);
}
fbt::bcache_read:return
/self->want/
{
	printf("returned from %d\n", self->blk);
	self->want = 0;
	self->blk = 0;
}
fbt::bcache_read:return
/!self->want && self->blk == 0/
{
	@cleared = count();
}
END
{
	printa("returns with nothing wanted: %@d\n", @cleared);
}
