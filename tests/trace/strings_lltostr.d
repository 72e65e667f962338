/* flags: -q */
/* lltostr() at the ends of int64_t, and in bases without a prefix (2, 3, 36) */
int64_t big, small;
BEGIN
{
	big = 9223372036854775807;
	small = -big - 1;
	printf("[%s] [%s] [%s] [%s]\n", lltostr(0), lltostr(-1), lltostr(big), lltostr(small));
	printf("[%s] [%s] [%s]\n", lltostr(5, 2), lltostr(0, 2), lltostr(-1, 2));
	printf("[%s] [%s] [%s]\n", lltostr(35, 36), lltostr(36, 36), lltostr(big, 36));
	printf("[%s] [%s]\n", lltostr(8, 3), lltostr(-7, 10));
	printf("%d %s\n", strlen(lltostr(small)), strjoin(lltostr(4), lltostr(2)));
	exit(0);
}
