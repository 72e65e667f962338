/* discard() in a clause of its own, after a speculative one. */
BEGIN
{
	self->s = speculation();
}

BEGIN
/self->s/
{
	speculate(self->s);
	printf("%d\n", 1);
	printa(@never);
}

BEGIN
{
	@never = count();
}

END
{
	discard(self->s);
}
