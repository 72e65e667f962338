BEGIN
{
	stop();
}
