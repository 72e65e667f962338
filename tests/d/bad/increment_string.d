BEGIN
{
	s = "abc";
	s++;
}
