BEGIN{trace(1);}END{trace(2);}tick-1s/tid/{trace(3)}
	fbt::bcache_read:entry	,	fbt::bcache_read:return
{
	@[probename]=count();
}
