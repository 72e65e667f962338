struct flags { unsigned int on : 1; int n; };

BEGIN
{
	trace(offsetof(struct flags, on));
	trace(offsetof(struct flags, missing));
}
