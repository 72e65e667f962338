/* Sizes take k/m/g/t, rates ns/us/ms/s/m/h/d or hz; several options on one line. */
#pragma D option bufsize=4k aggsize=2g dynvarsize=1g
#pragma D option switchrate=100ms
#pragma D option aggrate=250us
#pragma D option statusrate=2m
#pragma D option cleanrate=1000000
#pragma D option specsize=0x1000
#pragma ident "pragmas for other compilers are ignored"

BEGIN
{
	exit(0);
}
