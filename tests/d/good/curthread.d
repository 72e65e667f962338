/* curthread: its members, kept in a variable, compared with 0. */
fbt::bcache_read:entry
/curthread != 0 && curthread->tid > 1/
{
	trace(curthread->tid);
	trace(curthread->name);
	trace(curthread->affinity);
	trace(curthread->ticks_run);
	trace(curthread->switches_in);
	this->t = curthread;
	trace(this->t->name);
	@by_thread[curthread->name] = count();
}
