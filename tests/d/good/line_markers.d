/* #line and cpp's line markers move the location of what follows. */
BEGIN
{
	trace(1);
}
#line 100 "elsewhere.d"
END
{
	trace(2);
}
# 200 "third.d" 1
tick-1s
{
	trace(3);
}
