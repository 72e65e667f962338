/* flags: -q */
/* run: bcache run seq n=9 start=100 */
fbt::bcache_read:entry
{
	@[arg0 < 103 ? "low" : arg0 < 106 ? "mid" : "high"] = count();
}
