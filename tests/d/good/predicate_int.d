/* Predicates on integers, with every comparison operator. */
fbt::bcache_read:entry
/arg0 == 1 || arg0 != 2 && arg1 < 3 || arg1 <= 4 || arg2 > 5 || arg2 >= 6/
{
	trace(arg0);
}

fbt::bcache_read:entry
/cpu/
{
	trace(cpu);
}

fbt::bcache_read:entry
/!(tid == 0)/
{
	trace(tid);
}
