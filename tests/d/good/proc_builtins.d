/* The process built-ins, errno, copyin/copyinstr, stringof and $target (-p 42). */
// flags: -n
syscall::openat:entry
/pid == 42 && ppid != 0 && uid == 0/
{
	@[execname, curpsinfo->pr_fname, copyinstr(arg1)] = count();
	trace(*(int *)copyin(arg2, 4));
	trace(curpsinfo->pr_pid + curpsinfo->pr_ppid);
	trace(curpsinfo->pr_psargs);
}

syscall::read:return
/errno != 0/
{
	trace(errno);
	trace(copyinstr(arg1, 8));
}

proc:::exec
{
	trace(stringof(arg0));
}
