/* flags: -q */
BEGIN
{
	@n["banana"] = count();
	@n["apple"] = count();
	@n["apple"] = count();
	@n["cherry"] = count();
	@n["cherry"] = count();
	@n["cherry"] = count();
	exit(0);
}
