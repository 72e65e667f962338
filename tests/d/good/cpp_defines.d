// flags: -C
/* With -C the C preprocessor runs first; #pragma D option survives it. */
#define THRESHOLD 100
#define DOUBLE(x) ((x) * 2)
#pragma D option quiet

fbt::bcache_read:entry
/arg0 > THRESHOLD/
{
#if THRESHOLD > 50
	trace(DOUBLE(arg0));
#else
	trace(0);
#endif
}
