// SPDX-License-Identifier: BSD-2-Clause
/*
 * Shell commands for processes: `run PROG [ARGS]` (in the foreground,
 * on the console, or in the background with a trailing &), `ps`, and
 * `kill PID [SIG]`. These print for people; the host's `scion exec`
 * goes through the control channel instead.
 */
#include <scion/errno.h>
#include <scion/format.h>
#include <scion/printk.h>
#include <scion/shell.h>
#include <scion/string.h>
#include "proc_internal.h"

#define RUN_ARGS_MAX 32

static int cmd_run(int argc, char **argv)
{
	if (argc < 2) {
		printk("usage: run PROG [ARGS] [&]\n");
		return -EINVAL;
	}
	bool background = !strcmp(argv[argc - 1], "&");
	if (background)
		argc--;
	if (argc - 1 > RUN_ARGS_MAX) {
		printk("run: at most %d arguments\n", RUN_ARGS_MAX);
		return -E2BIG;
	}
	char path[CWD_MAX];
	snprintf(path, sizeof(path), "%s%s", argv[1][0] == '/' ? "" : "/", argv[1]);
	const char *args[RUN_ARGS_MAX + 1];
	for (int i = 1; i < argc; i++)
		args[i - 1] = argv[i];
	args[argc - 1] = NULL;
	int pid = proc_spawn(path, args, true);
	if (pid < 0) {
		printk("run: %s: %s%s\n", path, errno_name(pid),
		       pid == -ENOENT ? " (no such program in the boot archive: `ls /` lists them)" :
		       pid == -EAGAIN ? " (too many processes)" : "");
		return pid;
	}
	if (background) {
		proc_disown(pid);
		printk("[%d] %s\n", pid, path);
		return 0;
	}
	proc_set_foreground(pid);
	int status = 0;
	int err = proc_wait_kernel_child(pid, &status);
	proc_set_foreground(0);
	if (err)
		return err;
	if (status & 0x7f)
		printk("run: pid %d killed by signal %d\n", pid, status & 0x7f);
	else if ((status >> 8) & 0xff)
		printk("run: pid %d exited with status %d\n", pid, (status >> 8) & 0xff);
	return 0;
}
SHELL_COMMAND(run, "PROG [ARGS] [&]", "run a program of the boot archive as a user process", cmd_run);

/* STATE: alive, zombie, or stopped (made suspended by the host's exec, not resumed yet). */
static int cmd_ps(int argc, char **argv)
{
	if (argc != 1) {
		printk("%s: takes no arguments\n", argv[0]);
		return -EINVAL;
	}
	static struct proc_row rows[PROC_MAX];	/* the shell is one thread */
	unsigned n = proc_snapshot(rows, PROC_MAX);
	printk("  PID  PPID STATE    PAGES   FAULTS SYSCALLS NAME\n");
	for (unsigned i = 0; i < n; i++)
		printk("%5d %5d %-7s %6zu %8llu %8llu %s\n", rows[i].pid, rows[i].ppid,
		       rows[i].zombie ? "zombie" : rows[i].suspended ? "stopped" : "alive",
		       rows[i].pages, (unsigned long long)rows[i].faults,
		       (unsigned long long)rows[i].syscalls, rows[i].name);
	printk("%u process%s\n", n, n == 1 ? "" : "es");
	return 0;
}
SHELL_COMMAND(ps, "", "list user processes", cmd_ps);

static int cmd_kill(int argc, char **argv)
{
	uint64_t pid, sig = SIGTERM;
	if (argc < 2 || argc > 3 || parse_u64(argv[1], &pid, false) || pid > 0x7fffffff ||
	    (argc == 3 && (parse_u64(argv[2], &sig, false) || sig > NSIG_LINUX))) {
		printk("usage: kill PID [SIGNAL-NUMBER]\n");
		return -EINVAL;
	}
	int err = proc_kill((int)pid, (int)sig);
	if (err)
		printk("kill: %llu: %s\n", (unsigned long long)pid,
		       err == -ESRCH ? "no such process" : "bad signal number");
	return err;
}
SHELL_COMMAND(kill, "PID [SIG]", "send a signal to a process (default SIGTERM)", cmd_kill);
