BEGIN
{
	self->f(1);
}
