/* The string searches, NULL, caller and stack() as an aggregation key. */
fbt::bcache_read:entry
/strstr(probefunc, "read") != NULL && strchr(probefunc, 'z') == NULL/
{
	this->tok = strtok(probefunc, "_");
	this->rest = strtok(NULL, "_");
	@calls[stack(4), func(caller)] = count();
	@depth[stack()] = sum(rindex(probefunc, "a", 10) + index(probefunc, "c", 1));
	trace(strrchr(this->tok, 'c'));
}
