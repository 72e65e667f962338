END
{
	printa(@never_defined);
}
