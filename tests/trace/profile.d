/* flags: -q -x aggsortkey */
/* smp: 2 */
profile-100
{
	@cpus[cpu] = count();
}
tick-500ms
{
	exit(0);
}
END
{
	printa("cpu %d fired\n", @cpus);
}
