/* Loads through pointers: every width, signed or not, pointers to pointers, arithmetic. */
uint64_t *p;
char **pp;
BEGIN
{
	p = (uint64_t *)arg0;
	pp = (char **)arg1;
	trace(*p);
	trace(*(int8_t *)arg0);
	trace(*(unsigned char *)arg0);
	trace(*(short *)arg0);
	trace(*(uint16_t *)arg0);
	trace(*(int *)arg0);
	trace(*(unsigned int *)arg0);
	trace(*(long long *)arg0);
	trace(**pp);
	trace(*(p + 1));
	trace(p - (uint64_t *)arg1);
	this->q = *pp;
	trace(this->q != 0);
	trace(*this->q);
	trace((uintptr_t)p);
	printf("%p %x\n", p, *p);
}
