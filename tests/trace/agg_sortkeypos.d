/* flags: -q -x aggsortkey -x aggsortkeypos=1 */
/* aggsortkeypos=1: printa orders by the second key first, then the first */
BEGIN
{
	@n[3, "apple"] = sum(1);
	@n[1, "cherry"] = sum(2);
	@n[2, "apple"] = sum(3);
	@n[1, "banana"] = sum(4);
	@n[2, "cherry"] = sum(5);
	printa("%d %s %@d\n", @n);
	exit(0);
}
