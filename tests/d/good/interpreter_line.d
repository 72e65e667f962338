#!/usr/sbin/dtrace -s
/* The #! line of an executable script is not D. */
BEGIN
{
	trace(1);
}
