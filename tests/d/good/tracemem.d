/* tracemem(addr, size[, dynsize]): size bytes at addr, printed as a hex dump (dynsize of them) */
fbt::bcache_read:entry
{
	tracemem(curthread, 64);
	tracemem(arg1, 16, arg2 & 15);
	this->buf = (char *)alloca(8);
	tracemem(this->buf, 8);
}
