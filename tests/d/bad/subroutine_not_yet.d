/* dtrace's subroutines Scion does not have yet are refused, with the reason. */
BEGIN
{
	trace(progenyof(1));
}
