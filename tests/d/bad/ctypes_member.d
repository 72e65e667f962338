struct point { int x, y; };

BEGIN
{
	trace(((struct point *)arg0)->z);
	trace(((struct point *)arg0).x);
	trace(arg0->x);
	printf("%d", *(struct point *)arg0);
}
