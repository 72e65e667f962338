#pragma D option oformat=xml
BEGIN
{
	exit(0);
}
