/* tracemem( )'s size is an integer constant: the record's layout is fixed when it compiles */
fbt::bcache_read:entry
{
	tracemem(arg1, arg2);
}
