int empty[];

BEGIN
{
}
