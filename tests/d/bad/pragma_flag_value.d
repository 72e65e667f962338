#pragma D option quiet=yes
#pragma D option bufpolicy=sometimes
#pragma D option nspec=0

BEGIN
{
}
