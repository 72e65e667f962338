/* flags: -q */
/*
 * strstr, strchr and strrchr as DTrace answers them (illumos's tst.strchr.d
 * among them): the rest of the string from the match; NULL when absent,
 * which compares equal to NULL and to ""; '\0' finds the end; "" is found
 * at the start, even in "".
 */
BEGIN
{
	str = "fooeyfooeyfoo";
	c = 'f';
	printf("strchr(\"%s\", '%c') = \"%s\"\n", str, c, strchr(str, c));
	printf("strrchr(\"%s\", '%c') = \"%s\"\n", str, c, strrchr(str, c));
	c = 'y';
	printf("strchr(\"%s\", '%c') = \"%s\"\n", str, c, strchr(str, c));
	printf("strrchr(\"%s\", '%c') = \"%s\"\n", str, c, strrchr(str, c));
	printf("strrchr(\"%s\", '%c') = \"%s\"\n", strchr(str, c), c,
	    strrchr(strchr(str, c), c));
	printf("absent: %d %d %d %d\n", strchr(str, 'a') == NULL, strrchr(str, 'a') != NULL,
	    strchr("", 'a') == NULL, strchr(str, 'a') == "");
	printf("end: [%s] [%s] %d\n", strchr("abc", 0), strrchr("", 0), strchr("", 0) == NULL);
	printf("strstr: [%s] [%s] [%s] [%s]\n", strstr("foobarbaz", "bar"), strstr(str, "eyf"),
	    strstr("foobar", ""), strstr("", ""));
	printf("strstr absent: %d %d %d %d\n", strstr("foo", "foobar") == NULL,
	    strstr("", "a") == NULL, strstr("foobar", "baz") == NULL, strstr("", "") == NULL);
	printf("%s %d\n", strjoin(strchr("a.b.c", '.'), strrchr("a.b.c", '.')),
	    strlen(strstr(str, "oey")));
	exit(0);
}
