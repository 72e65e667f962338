/* print( ): a value laid out by its C type, as illumos dtrace prints it */
struct sample { int n; char name[8]; long vals[2]; };

fbt::bcache_read:entry
{
	this->s = (struct sample *)alloca(sizeof (struct sample));
	this->s->n = arg0;
	print(*this->s);
	print(this->s->vals);
	print(arg0);
	print(execname);
}
