/* alloca's scratch is the memory D writes: members, elements and *p
   stored, incremented and compound-assigned; bcopy and copyinto fill it. */
struct rec {
	int count;
	long total;
	char tag[8];
	struct rec *next;
};

BEGIN
{
	this->r = (struct rec *)alloca(sizeof (struct rec));
	this->r->count = 1;
	this->r->count++;
	++this->r->count;
	this->r->total += arg0;
	this->r->next = this->r;
	(*this->r).count *= 2;
	this->r->tag[0] = 'x';
	this->p = (int *)alloca(4 * sizeof (int));
	this->p[1] = 2;
	*this->p = this->p[1] + 1;
	bcopy(arg0, this->r->tag, 8);
	bcopy(this->p, this->r, sizeof (int));
	copyinto(arg1, 4, this->p);
	trace(this->r->count);
	trace(this->p[0]);
}
