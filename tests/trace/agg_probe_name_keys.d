/* flags: -q -x switchrate=10ms */
/* smp: 2 */
/* run: bcache run seq n=3000 start=100 */
/*
 * Keys that are the probe's name alone are found by the probe's id
 * (aggbuf_fold_known): two probes of one function share its entry, one
 * aggregation keyed by two different names keeps them apart, and the
 * totals are exact across the snapshots (one each 10 ms) of the run and
 * equal to those of the same keys built, hashed and compared whole
 * (@whole: a strjoin is no probe's name).
 */
fbt::bcache_read:entry,
fbt::bcache_read:return
{
	@[probefunc] = count();
	@[probename] = count();
	@s[probefunc] = sum(2);
	@q[probemod] = quantize(1);
	@whole[strjoin(probefunc, "")] = count();
	@whole[strjoin(probename, "")] = count();
}
