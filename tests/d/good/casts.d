/* Casts to integer types and string; constants fold through them. */
fbt::bcache_read:entry
{
	trace((uint8_t)arg0);
	trace((int)arg0 + 1);
	trace((unsigned long)arg1);
	trace((string)execname);
	trace((char)65);
	trace((uint8_t)300);
	trace((int8_t)200);
	trace((uint16_t)-1);
	trace((int64_t)curthread);
}
