/* ?: on integers and strings, nested. */
fbt::bcache_read:entry
{
	this->kind = arg0 > 10 ? "big" : arg0 > 1 ? "some" : "one";
	this->n = arg0 ? arg0 : 1;
	@k[this->kind] = sum(this->n);
	trace(arg1 > arg2 ? arg1 : arg2);
}
