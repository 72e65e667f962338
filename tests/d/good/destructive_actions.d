// options: destructive
/* With -w (the destructive option): chill, raise, stop, panic, breakpoint. */
syscall::write:entry
/execname == "victim"/
{
	chill(1000000);
	raise(9);
}

syscall::read:entry
/execname == "victim"/
{
	stop();
}

fbt::bcache_read:entry
/arg0 == 0xdead/
{
	breakpoint();
}

fbt::bcache_read:return
/arg1 == 0xdead/
{
	panic();
}
