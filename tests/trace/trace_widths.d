/*
 * trace() records a value at its type's width and prints it at dtrace's
 * column width for that size (" %3d", " %5d", " %8d", " %16d"), read as
 * its type says: a narrow signed value prints signed, a narrow unsigned
 * one unsigned; an 8-byte one as a long long, as dtrace does.
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
	trace((int8_t)-1);
	trace((uint8_t)255);
	trace((int16_t)-300);
	trace((uint16_t)65535);
	trace((int32_t)-5);
	trace((uint32_t)7);
	exit(0);
}
