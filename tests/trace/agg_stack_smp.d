/* smp: 2 */
/* flags: -q */
/*
 * A stack() key is merged across CPUs by its frames: both CPUs call
 * sched_tick from the one call site in the timer interrupt, so five ticks
 * on each make one entry of ten.
 */
int n[int];
fbt::sched_tick:entry
/n[cpu] < 5/
{
	n[cpu]++;
	@[stack(1)] = count();
	@cpus[cpu] = count();
}
tick-500ms
{
	exit(0);
}
END
{
	printa("CPU %d: %@d\n", @cpus);
}
