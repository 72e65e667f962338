int a[10];

BEGIN
{
}
