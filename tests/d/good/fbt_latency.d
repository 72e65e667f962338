/* Latency of bcache_read, with the entry's time kept per thread. */
fbt::bcache_read:entry
{
	self->ts = timestamp;
}

fbt::bcache_read:return
/self->ts != 0/
{
	@lat["bcache_read"] = quantize(timestamp - self->ts);
	self->ts = 0;
}
