/* trace() of integers, strings, curthread and expressions. */
BEGIN
{
	trace(1);
	trace("one");
	trace(curthread);
	trace(timestamp);
	trace(execname);
	trace(arg0 + arg1);
	trace(curthread->name);
}
