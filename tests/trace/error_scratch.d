/* flags: -q -x strsize=4096 */
BEGIN
{
	s = "0123456789abcdef";
	s = strjoin(s, s);
	s = strjoin(s, s);
	s = strjoin(s, s);
	s = strjoin(s, s);
	s = strjoin(s, s);
	s = strjoin(s, s);
	s = strjoin(s, s);
	printf("%d\n", strlen(s));
}
BEGIN
{
	exit(0);
}
