/* flags: -q */
/* smp: 2 */
/* A predicate on cpu keeps one CPU's profile firings; tick-N fires on a single CPU */
profile-50hz
/cpu == 1/
{
	@on[cpu] = count();
}
profile-50hz
{
	fired[cpu] = 1;
}
tick-20ms
{
	ticked[cpu] = 1;
}
tick-300ms
{
	exit(0);
}
END
{
	printa("profile-50hz /cpu == 1/ fired on cpu %d\n", @on);
	printf("profile-50hz fired on %d CPUs, tick-20ms on %d\n", fired[0] + fired[1],
	    ticked[0] + ticked[1]);
}
