/* flags: -q */
/* run: bcache run seq n=2 start=100 */
/* String comparisons: every relational operator, prefixes, "", variables, builtins and ?: */
fbt::bcache_read:entry
/probefunc == "bcache_read" && probename != "return"/
{
	a = "abc";
	b = "abd";
	printf("%d %d %d %d %d %d\n", a < b, a <= b, a > b, a >= b, a == b, a != b);
	printf("%d %d %d %d\n", "ab" < "abc", "abc" > "ab", "" < "a", "" == "");
	printf("%d %d %d\n", "B" < "a", "a" < "B", "abc" == strjoin("ab", "c"));
	printf("%s %s\n", probefunc > "bcache" ? "after" : "before",
	    substr(probefunc, 0, 6) == "bcache" ? "prefix" : "no prefix");
	printf("%d\n", arg0);
}
