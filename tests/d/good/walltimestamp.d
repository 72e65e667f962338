/* %Y prints walltimestamp as a date. */
tick-1s
{
	printf("%Y\n", walltimestamp);
	printf("%-30Y|\n", walltimestamp);
}
