inline int SELF = SELF + 1;
inline int LIMIT = 10;
struct in { int a; };
struct out { int x; int y; };
translator struct out < struct in *P > { x = P->a; };

BEGIN
{
	LIMIT = 3;
	trace(SELF);
	trace(xlate <struct out *> ((struct in *)arg0)->y);
	trace(xlate <struct out *> (arg0)->x);
	trace(xlate <struct out> ((struct in *)arg0));
}
