#pragma D option quiet
#pragma D option switchrate=10hz

/*
 * A realistic script: block cache read latency by thread, hit counts,
 * and a report every 10 seconds.
 */
uint64_t reads;

BEGIN
{
	printf("Tracing bcache reads... Hit Ctrl-C to end.\n");
	reads = 0;
}

fbt::bcache_read:entry
{
	self->block = arg0;
	self->start = timestamp;
	reads++;
}

fbt::bcache_read:return
/self->start/
{
	this->ns = timestamp - self->start;
	@latency[curthread->name] = quantize(this->ns);
	@blocks = lquantize(self->block, 0, 4096, 256);
	@slowest[curthread->name] = max(this->ns);
	self->start = 0;
	self->block = 0;
}

tick-10s
{
	printf("%Y: %d reads\n", walltimestamp, reads);
	printa("  %-20s %@d ns\n", @slowest);
	trunc(@slowest, 10);
}

END
{
	printa(@latency);
	printa(@blocks);
}
