/* Errors in two statements and a later clause are all reported. */
BEGIN
{
	x = 1 + ;
	y = (3;
	z = 4;
}

END
{
	trace(];
}
