/* flags: -q */
BEGIN
{
	printf("%d %d\n", strlen("hello"), strlen(""));
	printf("[%s] [%s]\n", strjoin("foo", "bar"), strjoin("", ""));
	printf("[%s] [%s] [%s] [%s]\n", substr("hello", 1), substr("hello", 1, 3),
	    substr("hello", -2), substr("hello", 10));
	printf("%d %d %d %d\n", index("hello", "l"), index("hello", "z"), index("hello", "l", 3),
	    index("hello", ""));
	printf("[%s] [%s] [%s]\n", lltostr(12345), lltostr(-7), lltostr(255, 16));
	printf("[%s] [%s] [%s]\n", basename("/a/b/c"), basename("/a/b/"), basename("c"));
	printf("[%s] [%s] [%s]\n", dirname("/a/b/c"), dirname("/a"), dirname("c"));
	printf("%d %d %d\n", "abc" < "abd", "abc" == "abc", "b" > "abc");
	exit(0);
}
