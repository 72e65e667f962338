/* flags: -q */
/* status: 2 */
tick-20ms
{
	printf("exiting\n");
	exit(2);
}
