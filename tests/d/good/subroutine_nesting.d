/* Subroutine results as arguments of other subroutines and actions. */
fbt::bcache_read:entry
{
	trace(strlen(strjoin(substr(execname, 0, 3), lltostr(arg0))));
	@by[basename(dirname("/x/y/z"))] = sum(strlen(execname));
	printf("%s %d\n", strjoin("a", strjoin("b", "c")), index(execname, substr("xyz", 1)));
}
