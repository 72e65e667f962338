/* flags: -q */
/* run: bcache run seq n=12 start=100 */
fbt::bcache_read:entry
{
	@[arg0 % 3, arg0 % 2 ? "odd" : "even"] = count();
}
