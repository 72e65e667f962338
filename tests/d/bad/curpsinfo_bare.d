/* curpsinfo is no value of its own: only its members are (curpsinfo->pr_pid ...). */
BEGIN
{
	trace(curpsinfo);
}
