/* With bufresize=manual a size past the kernel's maximum is an error, not reduced. */
#pragma D option bufresize=manual
#pragma D option dynvarsize=16m
BEGIN
{
	trace(1);
}
