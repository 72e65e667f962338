/* Every option, set by #pragma D option. */
#pragma D option aggrate=2hz
#pragma D option aggsize=1m
#pragma D option aggsortkey
#pragma D option aggsortkeypos=1
#pragma D option aggsortpos=0
#pragma D option aggsortrev=1
#pragma D option bufpolicy=ring
#pragma D option bufresize=manual
#pragma D option bufsize=16m
#pragma D option cleanrate=50hz
#pragma D option cpu=1
#pragma D option defaultargs
#pragma D option dynvarsize=2m
#pragma D option flowindent
#pragma D option nspec=8
#pragma D option quiet
#pragma D option rawbytes=0
#pragma D option specsize=64k
#pragma D option stackframes=32
#pragma D option statusrate=1s
#pragma D option strsize=512
#pragma D option switchrate=10hz
#pragma D option zdefs

BEGIN
{
	exit(0);
}
