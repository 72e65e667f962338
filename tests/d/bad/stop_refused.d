// options: destructive
BEGIN
{
	stop();
}
