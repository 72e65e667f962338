/* a string compares with NULL (as with ""), not with the integer 0 */
BEGIN
{
	trace(strchr("abc", 'z') == 0);
}
