BEGIN
{
	x = 1 + ;
}
