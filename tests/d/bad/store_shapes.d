/* What D cannot write in memory, and subroutines that give no value. */
struct s {
	int bits : 3;
	int whole;
	char name[4];
	struct s *next;
};

BEGIN
{
	this->s = (struct s *)alloca(sizeof (struct s));
	this->s->bits = 1;
	*this->s = *this->s->next;
	this->s->name = "abc";
	this->s->whole = "abc";
	this->x = bcopy(arg0, this->s, 4);
	bcopy(this->s, arg0);
	copyinto(arg0, 4, @a);
	trace(alloca(8) + bcopy(arg0, arg1, 1));
	curthread->ticks_run = 1;
	this->s->bits++;
}
