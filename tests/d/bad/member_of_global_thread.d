/* Only the current thread's members can be read: a global may hold another thread. */
BEGIN
{
	t = curthread;
	trace(t->name);
}
