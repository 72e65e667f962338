/*
 * trace() records a value at its type's width and prints it as dtrace
 * does: a 1- or 2-byte value as unsigned (" %3d", " %5d"), a 4-byte one
 * as an int (" %8d"), an 8-byte one as a long long (" %16d").
 */
BEGIN
{
	trace((char)300);
	trace((char)-1);
	trace((short)-2);
	trace((int)-2);
	trace(-2);
	trace((long long)-2);
	trace((unsigned int)4294967295);
	trace((uint64_t)-1);
	exit(0);
}
