/* BEGIN, END and ERROR: the dtrace provider's probes. */
BEGIN
{
	trace("start");
}

END
{
	trace("end");
}

ERROR
{
	trace(arg4);
}
