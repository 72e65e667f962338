/* Unary * needs a pointer: cast an address first, as in *(uint64_t *)arg0. */
BEGIN
{
	trace(*arg0);
	trace(*"abc");
	trace(*curthread);
}
