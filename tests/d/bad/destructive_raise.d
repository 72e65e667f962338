syscall::write:entry
{
	trace(arg0);
	raise(9);
}
