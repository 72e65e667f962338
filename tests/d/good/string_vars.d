/* String variables, compared and passed around. */
string last;

fbt::bcache_read:entry
/last != execname/
{
	last = execname;
	self->name = strjoin(last, ":");
	a[self->name] = strlen(self->name);
	trace(a[self->name]);
}
