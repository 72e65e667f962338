/* flags: -q */
/* run: threads */
/*
 * caller where no function call is probed, as DTrace computes it: at an
 * sdt probe (a probe inside a function) the probe's own site, in the
 * probe's function; at profile and BEGIN (probes in no function) the
 * return address of the function that was interrupted or fired, never 0.
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
