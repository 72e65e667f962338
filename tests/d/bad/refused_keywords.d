provider foo { probe bar(); };
static int counter;

BEGIN
{
	trace(sizeof(int));
}
