/* Several descriptions per clause, on one line and across lines. */
BEGIN, END
{
	trace(probename);
}

fbt::bcache_read:entry,fbt::bcache_prefetch:entry,
	fbt::bcache_evict:entry
/* a comment between the descriptions and the predicate */
/arg0 > 0/
{
	@a[probefunc] = count();
}
