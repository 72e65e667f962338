/* printf conversions, flags, widths, precisions and size prefixes (of their C type). */
fbt::bcache_read:entry
{
	printf("%d %i %u %x %X %o %c %s\n", arg0, arg1, arg2, arg3, arg4, arg5, 'c', execname);
	printf("%lld %llu %llx %ld %lu %hd %hu %hx\n", (long long)arg0, (unsigned long long)arg0,
	    arg0, arg0, (uint64_t)arg0, (short)arg0, (ushort_t)arg0, (short)arg0);
	printf("%-10s|%10s|%-5d|%05d|%+d|% d|%#x|%#o\n", execname, probefunc, arg0, arg0,
	    arg0, arg0, arg0, arg0);
	printf("%*d %.*s %*.*s\n", 8, arg0, 3, execname, 10, 2, probefunc);
	printf("%p %p %a %A %Y\n", arg0, curthread, arg0, arg1, walltimestamp);
	printf("100%% done\n");
	printf("%s", "no newline");
}
