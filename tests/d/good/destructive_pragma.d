/* #pragma D option destructive allows them as -w does, wherever it stands. */
BEGIN
{
	chill(10);
	exit(0);
}

#pragma D option destructive
