#pragma D option bufpolicy=circular
BEGIN
{
	exit(0);
}
