/* The speculation pattern: speculate on entry, commit or discard on return. */
#pragma D option nspec=4
#pragma D option specsize=64k

fbt::bcache_read:entry
{
	self->spec = speculation();
}

fbt::bcache_read:entry
/self->spec/
{
	speculate(self->spec);
	printf("reading block %d\n", arg0);
	stack();
}

fbt::bcache_read:return
/self->spec && arg1 != 0/
{
	commit(self->spec);
	self->spec = 0;
}

fbt::bcache_read:return
/self->spec/
{
	discard(self->spec);
	self->spec = 0;
}
