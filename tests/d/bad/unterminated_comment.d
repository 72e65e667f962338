BEGIN
{
	trace(1); /* the comment never ends
}
