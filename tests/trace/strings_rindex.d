/* flags: -q */
/*
 * index() and rindex() with and without a start position, as Perl (and so
 * DTrace) answer them: positions before the string start index() at 0 and
 * give rindex() nothing; past it, rindex() starts at the end and index()
 * finds nothing; "" is found at the start position, clamped, and at the
 * end past it; "" in "" is at 0 whatever the position.
 */
BEGIN
{
	s = "foofoofoo";
	printf("index: %d %d %d %d %d %d %d\n", index(s, "foo"), index(s, "foo", -1),
	    index(s, "foo", 1), index(s, "foo", 6), index(s, "foo", 7), index(s, "foo", 9),
	    index(s, "foo", 400));
	printf("rindex: %d %d %d %d %d %d %d\n", rindex(s, "foo"), rindex(s, "foo", -1),
	    rindex(s, "foo", 0), rindex(s, "foo", 5), rindex(s, "foo", 6), rindex(s, "foo", 9),
	    rindex(s, "foo", 400));
	printf("rindex absent: %d %d %d %d\n", rindex(s, "bar"), rindex(s, "foofoofoofoo"),
	    rindex("", "foo"), rindex(s, "oof", 0));
	t = "foobar";
	printf("empty in foobar: %d %d %d %d | %d %d %d %d\n", index(t, ""), index(t, "", -400),
	    index(t, "", 3), index(t, "", 400), rindex(t, ""), rindex(t, "", -400),
	    rindex(t, "", 3), rindex(t, "", 400));
	printf("empty in empty: %d %d %d %d\n", index("", "", 5), rindex("", "", -5),
	    index("", "x"), rindex("", ""));
	printf("%d %d\n", rindex(probename, "N"), rindex(strjoin("a/b", "/c"), "/"));
	exit(0);
}
