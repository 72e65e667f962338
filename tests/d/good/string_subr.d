/* The string subroutines. */
fbt::bcache_read:entry
{
	trace(strlen(execname));
	trace(strjoin(execname, "-x"));
	trace(substr(execname, 1));
	trace(substr(execname, 1, 3));
	trace(substr(execname, -2));
	trace(index(execname, "a"));
	trace(index(execname, "a", 2));
	trace(lltostr(arg0));
	trace(lltostr(arg0, 16));
	trace(basename("/a/b/c"));
	trace(dirname("/a/b/c"));
}
