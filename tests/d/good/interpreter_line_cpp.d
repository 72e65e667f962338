#!/usr/sbin/dtrace -Cs
// flags: -C
/* An interpreter line compiles through the C preprocessor too. */
#define ANSWER 42
BEGIN
{
	trace(ANSWER);
}
