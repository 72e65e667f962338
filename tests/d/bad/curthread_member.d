BEGIN
{
	trace(curthread->pc);
	trace(timestamp->x);
}
