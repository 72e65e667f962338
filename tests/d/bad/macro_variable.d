BEGIN
/pid == $pid/
{
	trace(1);
}
