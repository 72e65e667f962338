#pragma D option
#pragma D
#pragma D nosuchdirective
#pragma D depends_on module kernel
#pragma D error this script is not finished

BEGIN
{
}
