/* Globs in every field, and fields left empty. */
fbt::bcache_*:entry
{
	@calls[probefunc] = count();
}

fbt:kernel:thread_?reate:entry,
fbt::[a-c]*:return,
fbt::[!x]*:entry
{
	@calls[probefunc] = count();
}

fbt:::
{
	@any[probeprov, probename] = count();
}
