// args: limit
/* A non-numeric $1 is an identifier: here a global variable. */
BEGIN
{
	limit = 1;
	$1 = $1 + 1;
	trace(limit);
	trace($$0);
}
