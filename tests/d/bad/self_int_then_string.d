/* self->name read first becomes int64: assigning a string later conflicts. */
BEGIN
/self->name == 0/
{
	self->name = execname;
}
