/* The byte order conversions take exactly one integer. */
BEGIN
{
	trace(htonl());
}
