/* flags: -q */
/* DTrace's edges of lltostr (0x and 0 prefixes), index with "" and substr starting before the string */
BEGIN
{
	printf("[%s] [%s] [%s] [%s] [%s]\n", lltostr(0, 16), lltostr(255, 16), lltostr(8, 8),
	    lltostr(0, 8), lltostr(-1, 16));
	printf("%d %d %d %d\n", index("abc", "", 5), index("", "", 4), index("abc", "", 3),
	    index("abc", "c", 3));
	printf("[%s] [%s] [%s] [%s]\n", substr("hello", -10, -1), substr("hello", -7, 4),
	    substr("hello", -7, 1), substr("hello", 1, -1));
	exit(0);
}
