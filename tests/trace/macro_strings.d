/* flags: -q */
/* args: "hello world" 42 /usr/lib/x.d */
/* $$N makes any macro argument a string (spaces kept); $N of a number is an integer */
BEGIN
{
	printf("[%s] [%s] [%s]\n", $$1, $$2, $$3);
	printf("%d %d %d\n", $2 + 1, strlen($$1), strlen($$2));
	printf("[%s] [%s] %d\n", basename($$3), substr($$1, 6), $$2 == "42");
	exit(0);
}
