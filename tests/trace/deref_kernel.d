/* flags: -q */
/* run: threads */
/*
 * Loads through a valid kernel pointer: sdt:::shell-command's arg0 is
 * the command's name, here "threads" (the predicate's load leaves out
 * the commands scion trace runs itself). Each width reads its aligned word
 * holding the first byte and shifts that byte out, so the values do not
 * depend on where the name lies.
 */
sdt:::shell-command
/ *(char *)arg0 == 't' /
{
	this->name = (char *)arg0;
	this->shift = 8 * (arg0 & 7);
	printf("chars: %c%c%c%c%c%c%c, then %d\n", *this->name, *(this->name + 1),
	    *(this->name + 2), *(this->name + 3),
	    *(char *)(arg0 + 4), *(uint8_t *)(arg0 + 5), *(int8_t *)(arg0 + 6),
	    *(this->name + 7));
	/* %c takes a char, short or int, as in dtrace: the 64-bit loads are cast */
	printf("u64: %c\n", (int)((*(uint64_t *)(arg0 & ~7) >> this->shift) & 0xff));
	printf("u32: %c\n", (int)((*(uint32_t *)(arg0 & ~3) >> (8 * (arg0 & 3))) & 0xff));
	printf("u16: %c\n", (int)((*(unsigned short *)(arg0 & ~1) >> (8 * (arg0 & 1))) & 0xff));
	printf("pointer arithmetic: %d\n", (this->name + 7) - this->name);
}
