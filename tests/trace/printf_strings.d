/* flags: -q */
/* %s with widths and precisions, on literals, variables and subroutine results */
BEGIN
{
	s = "abcdef";
	printf("[%5.2s] [%-5.2s] [%.2s] [%2s] [%.10s] [%10.4s]\n", s, s, s, s, s, s);
	printf("[%.0s] [%s] [%5s] [%-5s|]\n", s, "", "", "");
	printf("[%*s] [%-*s] [%.*s] [%*.*s]\n", 8, s, 8, s, 3, s, 6, 2, s);
	printf("[%s%s] [%s-%s]\n", strjoin(s, "!"), "?", substr(s, 2, 2), probename);
	printf("%s%%%s\n", "50", "");
	exit(0);
}
