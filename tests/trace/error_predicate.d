/* flags: -q */
int zero;
BEGIN
/10 / zero == 1/
{
	printf("not reached\n");
}
BEGIN
{
	printf("the next clause runs\n");
	exit(0);
}
