/* flags: -q */
/*
 * A string subroutine's NULL: it compares equal to NULL and to "", a
 * string variable given it reads back as "" (DTrace keeps NULL there,
 * which compares the same), and recording it is an invalid address, as
 * in DTrace: the firing is abandoned and tracing goes on (illumos's
 * tst.strtok_null.d: strtok(NULL, ...) before any string fires ERROR).
 */
int errors;
int64_t offset;
BEGIN
{
	printf("%d %d %d\n", strchr("abc", 'z') == NULL, strchr("abc", 'z') == "",
	    strchr("abc", 'z') != NULL);
	this->s = strstr("abc", "x");
	printf("[%s] %d %d\n", this->s, this->s == NULL, this->s == "");
}
BEGIN
{
	trace(strchr("abc", 'z'));
}
BEGIN
{
	printf("%s|\n", strstr("abc", "x"));
}
BEGIN
{
	trace(strtok(NULL, "!"));
}
ERROR
{
	errors++;
	offset = arg3;	/* -1: the fault came after the DIF, copying its result */
}
BEGIN
{
	printf("errors so far: %d, DIF offset %d\n", errors, offset);
	exit(0);
}
