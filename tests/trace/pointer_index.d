/* flags: -q */
/* run: threads */
/*
 * p[i] is *(p + i), as in C and dtrace: sdt:::shell-command's arg0 is the
 * command's name ("threads"), read by index through a cast expression, a
 * clause-local and a thread-local pointer, with constant and variable
 * indexes, and through a 4-byte element type whose index is scaled.
 */
sdt:::shell-command
/ ((char *)arg0)[0] == 't' /
{
	this->name = (char *)arg0;
	printf("%c%c%c%c%c%c%c, then %d\n", ((char *)arg0)[0], this->name[1], this->name[2],
	    (this->name + 1)[2], this->name[2 * 2], this->name[5], this->name[6],
	    this->name[7]);
	this->i = 6;
	self->p = this->name;
	printf("%c %c\n", this->name[this->i], self->p[this->i - 5]);
	this->words = (uint32_t *)(arg0 & ~3);
	printf("%d %d\n", this->words[0] == *(uint32_t *)(arg0 & ~3),
	    this->words[1] == *(uint32_t *)((arg0 & ~3) + 4));
}
