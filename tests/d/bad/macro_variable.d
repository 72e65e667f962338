BEGIN
/pid == $pid/
{
	trace($target);
}
