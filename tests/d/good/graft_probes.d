/* The graft provider: every probe, then the install and abort events. */
graft:::
{
	@events[probename] = count();
}

graft::sched.pick_next:install,
graft::bcache.evict:abort
{
	printf("%s %s\n", probefunc, probename);
}
