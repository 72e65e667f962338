/* flags: -q */
/* index() with and without a start position, empty strings, no match */
BEGIN
{
	s = "abcabc";
	printf("%d %d %d %d %d\n", index(s, "a"), index(s, "c"), index(s, "bc"), index(s, "abc"),
	    index(s, "cab"));
	printf("%d %d %d %d\n", index(s, "x"), index(s, "abcabcd"), index(s, "cc"), index("", "a"));
	printf("%d %d %d %d %d\n", index(s, "a", 1), index(s, "bc", 2), index(s, "c", 5),
	    index(s, "c", 6), index(s, "a", 4));
	printf("%d %d %d\n", index(s, "b", -3), index(s, "", 0), index(s, "", 4));
	printf("%d %d %d\n", index(s, "", 6), index(s, "", -1), index("", ""));
	printf("%d\n", index(strjoin(s, "xyz"), substr("wxyz", 1)));
	exit(0);
}
