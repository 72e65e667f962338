/* flags: -q */
/* run: threads */
int switches;
sdt:::thread-switch
{
	switches++;
}
END
{
	printf("switched: %d\n", switches > 0);
}
