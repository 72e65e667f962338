/* void * has no element size to index by. */
BEGIN
{
	trace(((void *)arg0)[1]);
}
