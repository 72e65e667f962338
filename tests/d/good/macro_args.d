// args: 10 bcache_read hello 0x20 -3
/* $1 is an integer, $2 an identifier (in a probe description), $$3 a string. */
fbt::$2:entry
/arg0 > $1/
{
	printf("%s %d %d\n", $$3, $4, $5);
	@calls[$$2] = count();
}
