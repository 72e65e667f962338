/* flags: -q */
BEGIN
{
	printf("%s:%s:%s:%s\n", probeprov, probemod, probefunc, probename);
	printf("epid %d, cpu %d, pid %d\n", epid, cpu, pid);
	printf("%d %d\n", timestamp > 0, vtimestamp > 0);
	printf("tid matches: %d\n", tid == curthread->tid);
	printf("execname: %s\n", execname);
	exit(0);
}
