/* Strings of the trace bytecode hold at most 4096 bytes. */
#pragma D option strsize=64k
BEGIN
{
	trace(execname);
}
