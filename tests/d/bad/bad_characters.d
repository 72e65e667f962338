BEGIN
{
	trace('');
	trace('ab');
}
