BEGIN
{
	if (arg0 > 1)
		trace(arg0);
}
