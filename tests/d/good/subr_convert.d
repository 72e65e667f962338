/*
 * toupper, tolower, strtoll, cleanpath and the byte order conversions:
 * strings give strings, strtoll an int64_t, htons/ntohs a uint16_t,
 * htonl/ntohl a uint32_t, htonll/ntohll a uint64_t.
 */
BEGIN
{
	trace(toupper(execname));
	trace(tolower("MiXeD 123"));
	x = strtoll("  -0x1f", 16);
	y = strtoll(probefunc);
	trace(strtoll("0755", 0) + x + y);
	trace(cleanpath("/usr/./lib//../bin/"));
	trace(htons(0x1234));
	trace(htonl(arg0) == ntohl(arg0));
	trace(htonll(x) ^ ntohll(y));
	trace(ntohs(arg1) + ntohl(arg2));
	@paths[cleanpath(strjoin("/a/../", tolower(execname)))] = count();
}
