/* flags: -q */
/* status: 7 */
BEGIN
{
	printf("begin 1\n");
}
BEGIN
{
	printf("begin 2\n");
	exit(7);
}
BEGIN
{
	printf("not reached: exit() stops the later clauses\n");
}
END
{
	printf("end\n");
}
