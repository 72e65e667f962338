#pragma D option switchrate=10parsecs
#pragma D option aggrate=0hz

BEGIN
{
}
