/* Every built-in variable. */
fbt::bcache_read:entry
{
	trace(timestamp);
	trace(vtimestamp);
	trace(walltimestamp);
	trace(cpu);
	trace(tid);
	trace(pid);
	trace(execname);
	trace(probeprov);
	trace(probemod);
	trace(probefunc);
	trace(probename);
	trace(epid);
	trace(id);
	trace(curthread);
	trace(arg0 + arg1 + arg2 + arg3 + arg4 + arg5 + arg6 + arg7 + arg8 + arg9);
}
