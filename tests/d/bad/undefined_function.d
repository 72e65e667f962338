BEGIN
{
	trace(nosuchfunction(1));
}
