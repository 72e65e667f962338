/* ^^ is D's logical exclusive or. */
fbt::bcache_read:entry
/arg0 ^^ arg1/
{
	trace(arg0 ^^ arg1 ^^ arg2);
}
