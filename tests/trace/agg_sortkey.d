/* flags: -q -x aggsortkey */
BEGIN
{
	@n["banana"] = sum(5);
	@n["apple"] = sum(1);
	@n["cherry"] = sum(3);
	exit(0);
}
