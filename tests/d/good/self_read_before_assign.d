/* self-> and this-> read before any assignment are int64 (zero until assigned). */
fbt::bcache_read:return
/self->ts/
{
	@t = quantize(timestamp - self->ts);
	trace(this->unset);
}

fbt::bcache_read:entry
{
	self->ts = timestamp;
}
