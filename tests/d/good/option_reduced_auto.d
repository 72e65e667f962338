/* With bufresize=auto (the default) sizes past the kernel's maximum are reduced to it. */
#pragma D option dynvarsize=16m
#pragma D option aggsize=64m
#pragma D option nspec=100
BEGIN
{
	trace(1);
}
