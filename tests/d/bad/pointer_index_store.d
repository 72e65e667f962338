/* D reads memory, it does not write it: p[i] is not an lvalue. */
BEGIN
{
	this->p = (int *)arg0;
	this->p[1] = 2;
}
