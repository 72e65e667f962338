this int a[int];

BEGIN
{
	this->b[1] = 2;
}
