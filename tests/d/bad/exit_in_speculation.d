BEGIN
{
	speculate(speculation());
	exit(0);
}
