/* Assignments may come before speculate(); aggregations go in a clause of their own. */
fbt::bcache_read:entry
{
	self->s = speculation();
	self->pending = 1;
	speculate(self->s);
	trace(arg0);
}

fbt::bcache_read:entry
{
	@specs = count();
}

fbt::bcache_read:return
/self->pending/
{
	self->pending = 0;
	commit(self->s);
}
