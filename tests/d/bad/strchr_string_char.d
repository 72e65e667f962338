/* strchr( ) and strrchr( ) look for a character, not a string */
BEGIN
{
	trace(strchr("abc", "b"));
}
