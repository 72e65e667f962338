/* Thread-local associative arrays. */
fbt::bcache_read:entry
{
	self->starts[arg0] = timestamp;
}

fbt::bcache_read:return
/self->starts[arg0]/
{
	@lat = quantize(timestamp - self->starts[arg0]);
	self->starts[arg0] = 0;
}
