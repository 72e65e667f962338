/*
 * Structs as associative-array values and thread-local variables, as the
 * DTrace guide's rwinfo example uses them: an element is made zeroed on first
 * use and its members are read and written in place.
 */
struct callinfo {
	uint64_t ts;		/* timestamp of last syscall entry */
	uint64_t elapsed;	/* total elapsed time in nanoseconds */
	uint64_t calls;		/* number of calls made */
	size_t maxbytes;	/* maximum byte count argument */
	int hist[4];
};

struct callinfo i[string];
self struct callinfo mine;

syscall::read:entry, syscall::write:entry
/pid == $1/
{
	i[probefunc].ts = timestamp;
	i[probefunc].calls++;
	i[probefunc].maxbytes = arg2 > i[probefunc].maxbytes ? arg2 : i[probefunc].maxbytes;
	i[probefunc].hist[arg2 & 3]++;
	self->mine.calls++;
	this->p = &i[probefunc];
	this->p->elapsed += 0;
}

syscall::read:return, syscall::write:return
/i[probefunc].ts != 0 && pid == $1/
{
	i[probefunc].elapsed += timestamp - i[probefunc].ts;
}

END
{
	printf("  read  %5d  %9d  %d\n", i["read"].calls, i["read"].maxbytes, i["read"].elapsed);
	printf("  write %5d  %9d  %d\n", i["write"].calls, i["write"].maxbytes, i["write"].elapsed);
	trace(i["write"]);
}
