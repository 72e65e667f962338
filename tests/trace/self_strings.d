/* flags: -q */
/* run: bcache run seq n=3 start=100 */
fbt::bcache_read:entry
{
	self->name = strjoin("block-", lltostr(arg0));
}
fbt::bcache_read:return
/self->name != ""/
{
	printf("%s\n", self->name);
	self->name = "";
}
