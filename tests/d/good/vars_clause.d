/* Clause-local variables: implicit on assignment, one type program-wide. */
this string note;

fbt::bcache_read:entry
{
	this->delta = arg1 - arg0;
	this->note = "read";
	@d[this->note] = sum(this->delta);
}

fbt::bcache_read:return
{
	this->delta = arg0;
	trace(this->delta * 2);
}
