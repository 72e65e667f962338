/* errno: Scion has no system calls to set it. */
BEGIN
{
	trace(errno);
}
