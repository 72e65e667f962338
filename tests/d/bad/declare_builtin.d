int timestamp;
int count;

BEGIN
{
}
