// args: 1
BEGIN
{
	trace($1 + $2);
}
