/* A pointer variable holds pointers: an integer needs a cast, and back. */
int *p;
BEGIN
{
	p = arg0;
	x = 1;
	x = (int *)arg0;
}
