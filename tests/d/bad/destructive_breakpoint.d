BEGIN
/1/
{
	breakpoint();
}
