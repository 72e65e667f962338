/* A void * has no pointee to load: cast it to a pointer to an integer. */
void *p;
BEGIN
{
	p = (void *)arg0;
	trace(*p);
	trace(**(void **)arg0);
}
