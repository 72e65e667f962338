int x;
string x;

BEGIN
{
}
