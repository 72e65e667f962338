/* flags: -q */
/* substr() with negative and out-of-range offsets and lengths */
BEGIN
{
	s = "hello";
	printf("[%s] [%s] [%s] [%s] [%s]\n", substr(s, 0), substr(s, 4), substr(s, 5),
	    substr(s, -1), substr(s, -5));
	printf("[%s] [%s] [%s] [%s]\n", substr(s, -10), substr(s, -10, 3), substr(s, -10, 7),
	    substr(s, -6, 3));
	printf("[%s] [%s] [%s] [%s] [%s]\n", substr(s, 1, -1), substr(s, 1, -10),
	    substr(s, -3, -1), substr(s, -2, -1), substr(s, 0, -5));
	printf("[%s] [%s] [%s] [%s]\n", substr(s, 0, 0), substr(s, 2, 100), substr(s, 10, 2),
	    substr(s, -1, 1));
	printf("[%s] [%s] [%s]\n", substr("", 0), substr("", -1), substr("", 0, 3));
	printf("%d %d\n", strlen(substr(s, 1, 3)), strlen(substr(s, 9)));
	exit(0);
}
