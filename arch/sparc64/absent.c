// SPDX-License-Identifier: BSD-2-Clause
/*
 * What the portable core calls in the part of kernel/ the sparc64 port
 * does not build yet (arch/sparc64/arch.mk says why): user processes
 * (kernel/proc/: they speak the Linux x86-64 ABI). Each entry point
 * refuses honestly: a request gets -ENOTSUP or "nothing found" with a
 * one-line reason, a query reports that none exist; nothing pretends to
 * succeed. This file goes away when kernel/proc joins ARCH_CORE_SRCS.
 * Invariants: no state; safe in any context.
 */
#include <scion/errno.h>
#include <scion/printk.h>
#include <scion/proc.h>
#include <scion/shell.h>
#include <scion/string.h>

#define NO_PROCS "sparc64: no user processes yet (issue 25): the Linux x86-64 ABI has no SPARC counterpart here"

/* ---- Processes (kernel/proc/) ---------------------------------------------------- */

int proc_pid(const struct process *p)
{
	(void)p;
	return -1;
}

/* DTrace's raise(): no thread belongs to a process here. */
int proc_signal_defer(int sig)
{
	return sig <= 0 || sig > NSIG_LINUX ? -EINVAL : -ESRCH;
}

int proc_stop_defer(void)
{
	return -ESRCH;
}

int proc_ppid(const struct process *p)
{
	(void)p;
	return -1;
}

const char *proc_name(const struct process *p)
{
	(void)p;
	return "?";
}

const char *proc_psargs(const struct process *p)
{
	(void)p;
	return "";
}

uint64_t proc_thread_id(int pid)
{
	(void)pid;
	return 0;
}

void proc_poll_notify(void)
{
}

/* No process reads the console: Ctrl-C is an ordinary byte. */
bool proc_console_interrupt(void)
{
	return false;
}

void proc_foreach_monitor(void (*fn)(const struct proc_monitor_view *v, void *arg), void *arg)
{
	(void)fn; (void)arg;
}

static int refuse_request(const char *what)
{
	printk("%s: %s\n", what, NO_PROCS);
	return -ENOTSUP;
}

int proc_exec_request(uint32_t seq, const uint8_t *body, uint32_t len)
{
	(void)seq; (void)body; (void)len;
	return refuse_request("exec");
}

int proc_exec_resume_request(uint32_t seq, const uint8_t *body, uint32_t len)
{
	(void)seq; (void)body; (void)len;
	return refuse_request("exec");
}

int proc_signal_request(uint32_t seq, const uint8_t *body, uint32_t len)
{
	(void)seq; (void)body; (void)len;
	return refuse_request("signal");
}

/* ---- What the in-kernel tests call besides (tests/kernel/) ------------------------ */

int proc_spawn(const char *path, const char *const argv[], bool with_console)
{
	(void)argv; (void)with_console;
	printk("%s: %s\n", path, NO_PROCS);
	return -ENOTSUP;
}

int proc_wait_kernel_child(int pid, int *status)
{
	(void)pid; (void)status;
	return -ENOTSUP;
}

/* ---- The shell commands of the directories left out: they answer why -------------- */

static int cmd_no_processes(int argc, char **argv)
{
	(void)argc;
	printk("%s: %s\n", argv[0], NO_PROCS);
	return -ENOTSUP;
}
SHELL_COMMAND(run, "...", "user processes (not on sparc64 yet)", cmd_no_processes);
SHELL_COMMAND(ps, "", "user processes (not on sparc64 yet)", cmd_no_processes);
SHELL_COMMAND(kill, "...", "user processes (not on sparc64 yet)", cmd_no_processes);
