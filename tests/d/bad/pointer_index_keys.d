/* p[i] on a pointer takes one index: it is *(p + i), not an associative array. */
BEGIN
{
	this->p = (int *)arg0;
	trace(this->p[1, 2]);
}
