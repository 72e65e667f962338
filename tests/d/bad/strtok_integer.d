/* strtok( ) goes on with NULL, not with the integer 0 */
BEGIN
{
	trace(strtok("a,b", ","));
	trace(strtok(0, ","));
}
