/* flags: -q */
/* basename() and dirname() on "", "/", repeated and trailing slashes, relative names */
BEGIN
{
	printf("[%s] [%s] [%s] [%s] [%s]\n", basename(""), basename("/"), basename("///"),
	    basename("a"), basename("a/"));
	printf("[%s] [%s] [%s] [%s] [%s]\n", basename("/a"), basename("a//"), basename("/a/b"),
	    basename("a/b//c//"), basename("./x.d"));
	printf("[%s] [%s] [%s] [%s] [%s]\n", dirname(""), dirname("/"), dirname("///"),
	    dirname("a"), dirname("a/"));
	printf("[%s] [%s] [%s] [%s] [%s]\n", dirname("/a"), dirname("a//"), dirname("/a/b"),
	    dirname("a/b//c//"), dirname("//a//b"));
	printf("[%s] [%s]\n", dirname(dirname("/usr/lib/dtrace")),
	    basename(dirname("/usr/lib/dtrace")));
	exit(0);
}
