/* flags: -q */
/* run: bcache run seq n=10 start=100 */
/* fbt return probes: arg0 is the offset of the ret that fired in its function, arg1 the return value */
fbt::bcache_read:entry
{
	self->block = arg0;
}

fbt::bcache_read:return
/self->block/
{
	@rv[(int)arg1] = count();
	@inside["offset within the function"] = count();
	@outside["offset of 0 or past 64 KiB"] = sum(arg0 == 0 || arg0 > 65536);
	self->block = 0;
}

END
{
	printa("bcache_read returned %d: %@d times\n", @rv);
	printa("%s: %@d\n", @inside);
	printa("%s: %@d\n", @outside);
}
