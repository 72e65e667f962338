/* With defaultargs, a missing $N is 0 and a missing $$N is "". */
#pragma D option defaultargs

BEGIN
{
	trace($1);
	trace($$2);
	trace($3 + 1);
}
