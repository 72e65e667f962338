inline int limit = 10;
translator foo < int x > { };
struct point { int x; };

BEGIN
{
	trace(sizeof(int));
}
