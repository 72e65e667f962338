/* flags: -q */
/*
 * strtok() as illumos's tst.strtok.d runs it: the first call takes the
 * string, strtok(NULL, ...) goes on from where the last one stopped, in
 * later clauses of the same probe firing too, skipping empty fields, and
 * gives NULL once no token is left; each firing starts with nothing to
 * go on. Delimiters may change from call to call.
 */
int n;
BEGIN
{
	this->str = ",,,Carrots,,Barley,Oatmeal,,,Beans,";
}
BEGIN
/(this->field = strtok(this->str, ",")) == NULL/
{
	exit(1);
}
BEGIN
{
	printf("%s\n", this->field);
}
BEGIN
/(this->field = strtok(NULL, ",")) == NULL/
{
	exit(2);
}
BEGIN
{
	printf("%s\n", this->field);
}
BEGIN
/(this->field = strtok(NULL, ",")) == NULL/
{
	exit(3);
}
BEGIN
{
	printf("%s\n", this->field);
}
BEGIN
/(this->field = strtok(NULL, ",")) == NULL/
{
	exit(4);
}
BEGIN
{
	printf("%s\n", this->field);
}
BEGIN
/(self->a = strtok(NULL, ",")) != NULL/
{
	printf("unexpected field: %s\n", this->field);
	exit(5);
}
BEGIN
{
	printf("[%s] [%s] [%s]\n", strtok("key=value;next", "="), strtok(NULL, "=;"),
	    strtok(NULL, ""));
	printf("%d %d %d [%s] [%s]\n", strtok("", "") == NULL, strtok("", "foo") == NULL,
	    strtok(",,,", ",") == NULL, strtok("foo", ""), strtok("oobar", "o"));
	left = strtok("a b c", " ");
}
tick-10ms
/n++ < 2/
{
	/* a new firing: what BEGIN left is gone */
	printf("tick: %d\n", strtok(NULL, " ") == NULL);
}
tick-10ms
/n == 3/
{
	printf("%s\n", left);
	exit(0);
}
