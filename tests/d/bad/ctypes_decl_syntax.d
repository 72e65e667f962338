struct a { int : 3; };
struct b { int x : y; };
enum c { A = arg0 };
struct d { int ok; };

BEGIN
{
	trace(1);
}
