/* flags: -q */
/* run: sched run n=1 rounds=2 compute=2 sleep=2 */
/*
 * caller where no function call is probed, as DTrace computes it: at an
 * sdt probe (a probe inside a function) the probe's own site, in the
 * probe's function; at profile and BEGIN (probes in no function) the
 * return address of the function that was interrupted or fired, never 0.
 * The run lasts six ticks, so that profile-100 fires in it (a shorter one,
 * `threads`, can end before the first tick).
 */
int done;
uint64_t prof;
BEGIN
{
	printf("BEGIN: %d\n", caller != 0);
}
sdt:::thread-switch
/!done/
{
	done = 1;
	printf("%s ", probefunc);
	trace(func(caller));
	printf("|\n");
}
profile-100
/!prof/
{
	prof = caller;
}
END
{
	printf("profile: %d %d\n", prof != 0, func(prof) != 0);
}
