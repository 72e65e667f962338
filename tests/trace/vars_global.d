/* flags: -q */
string name;
int64_t total;
BEGIN
{
	name = "scion";
	total = 40;
	total = total + 2;
}
BEGIN
{
	printf("%s %d\n", name, total);
	exit(0);
}
