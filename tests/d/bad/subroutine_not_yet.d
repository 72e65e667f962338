/* dtrace's other string subroutines are refused until the bytecode has them. */
BEGIN
{
	trace(toupper(execname));
}
