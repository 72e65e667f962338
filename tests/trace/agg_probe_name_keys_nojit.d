/* flags: -q -x nojit -x switchrate=10ms */
/* smp: 2 */
/* run: bcache run seq n=3000 start=100 */
/*
 * agg_probe_name_keys.d interpreted: keys that are the probe's name are
 * built, hashed and compared whole, with the same totals.
 */
fbt::bcache_read:entry,
fbt::bcache_read:return
{
	@[probefunc] = count();
	@[probename] = count();
	@s[probefunc] = sum(2);
	@q[probemod] = quantize(1);
}
