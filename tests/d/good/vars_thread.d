/* Thread-local variables: declared, implicit, read before assignment. */
self int depth;
self string who;

fbt::bcache_read:entry
/self->pending == 0/
{
	self->depth++;
	self->who = execname;
	self->start = timestamp;
	self->pending = 1;
}

fbt::bcache_read:return
/self->pending/
{
	@depths[self->who] = max(self->depth);
	self->depth--;
	self->pending = 0;
}
