/* Strings compare with ==, != and the relational operators. */
fbt::bcache_read:entry
/execname == "bcache-worker"/
{
	trace(execname);
}

fbt::bcache_read:entry
/probefunc != "bcache_read" && execname < "m" && "a" <= probename/
{
	trace(probefunc);
}
