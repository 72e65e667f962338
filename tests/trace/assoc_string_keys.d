/* flags: -q */
/* run: bcache run seq n=15 start=100 */
/* Associative arrays keyed by computed strings and by (string, int) tuples, read back in END */
int seen[string];
int64_t first[string];
int pair[string, int];
fbt::bcache_read:entry
{
	kind = arg0 % 15 == 0 ? "fizzbuzz" : arg0 % 5 == 0 ? "buzz" : arg0 % 3 == 0 ? "fizz" : "num";
	seen[kind]++;
	last[kind] = arg0;
	first[kind] = first[kind] ? first[kind] : arg0;
	name[arg0] = strjoin(kind, strjoin("-", lltostr(arg0)));
	pair[kind, arg0 % 2] += 1;
}
END
{
	printf("fizz %d (%d..%d)\n", seen["fizz"], first["fizz"], last["fizz"]);
	printf("buzz %d (%d..%d)\n", seen["buzz"], first["buzz"], last["buzz"]);
	printf("fizzbuzz %d (%d..%d)\n", seen["fizzbuzz"], first["fizzbuzz"], last["fizzbuzz"]);
	printf("num %d (%d..%d)\n", seen["num"], first["num"], last["num"]);
	printf("never %d [%s]\n", seen["never"], name[99]);
	printf("%s %s %s\n", name[100], name[105], name[114]);
	printf("fizz odd %d even %d; num odd %d even %d\n", pair["fizz", 1], pair["fizz", 0],
	    pair["num", 1], pair["num", 0]);
}
