// SPDX-License-Identifier: BSD-2-Clause
/*
 * The system calls that make, replace and end processes: fork, vfork,
 * clone (for processes only), execve, exit and exit_group, and the
 * identity calls.
 *
 * fork copies the caller's memory map page by page (no copy-on-write
 * yet), shares its open files as Linux does, and starts the child's
 * thread from a copy of the caller's user frame with 0 in the result
 * register. vfork is fork: the child has its own copy, so the parent
 * need not wait for it (allowed by POSIX, visible only to programs that
 * rely on sharing).
 *
 * The proc provider's probes here (SDT sites, scion/sdt.h; README
 * "The proc provider"): proc:::create (arg0 the child's pid) in the
 * parent, after the child exists; proc:::exec (arg0 the resolved path,
 * a kernel string: stringof(arg0)) once execve has a path;
 * proc:::exec-success in the new program, its name already changed;
 * proc:::exec-failure (arg0 the errno) when execve fails.
 */
#include <scion/errno.h>
#include <scion/sdt.h>
#include <scion/mm.h>
#include <scion/string.h>
#include <arch/user.h>
#include "proc_internal.h"

static int64_t do_fork(bool share_memory)
{
	struct process *parent = proc_current();
	struct process *child = proc_alloc(parent);
	if (!child)
		return -EAGAIN;
	strlcpy(child->name, parent->name, sizeof(child->name));
	memcpy(child->psargs, parent->psargs, sizeof(child->psargs));
	memcpy(child->actions, parent->actions, sizeof(child->actions));
	child->blocked = parent->blocked;
	int err = 0;
	if (share_memory) {
		child->vm = parent->vm;		/* borrowed: see proc_vfork_release */
		child->vfork_parent = parent;
		parent->vfork_done = false;
	} else {
		err = vm_init(&child->vm);
		if (!err)
			err = vm_copy(&child->vm, &parent->vm);
	}
	if (err) {
		proc_free(child);
		return err == -ENOMEM ? -EAGAIN : err;
	}
	fd_copy_table(child, parent);
	struct trap_frame frame = *syscall_frame();
	arch_syscall_set_return(&frame, 0);
	arch_thread_user_sync();
	err = proc_start_thread(child, &frame, thread_current());
	if (err) {
		if (share_memory)
			memset(&child->vm, 0, sizeof(child->vm));
		proc_free(child);
		return -EAGAIN;
	}
	int pid = child->pid;	/* child may be gone by the time the wait below ends */
	SDT_PROBE1_P(proc, create, pid);
	if (share_memory) {
		irqflags_t f = spin_lock_irqsave(&parent->child_wq.lock);
		while (!parent->vfork_done)
			waitq_sleep(&parent->child_wq, 0);
		spin_unlock_irqrestore(&parent->child_wq.lock, f);
	}
	return pid;
}

SYSCALL(fork)
{
	return do_fork(false);
}

/*
 * vfork: the child runs in the parent's memory, on its stack, while the
 * parent waits in here until the child execs or exits (Linux's and
 * POSIX's vfork); writes the child makes before that are the parent's.
 */
SYSCALL(vfork)
{
	return do_fork(true);
}

#define LINUX_CSIGNAL 0xff
#define LINUX_CLONE_CHILD_SETTID 0x01000000
#define LINUX_CLONE_CHILD_CLEARTID 0x00200000

SYSCALL(clone)
{
	/* Only a new process with SIGCHLD at exit: threads (CLONE_VM ...) are refused. */
	uint64_t flags = a0;
	if ((flags & ~(uint64_t)(LINUX_CSIGNAL | LINUX_CLONE_CHILD_SETTID | LINUX_CLONE_CHILD_CLEARTID)) ||
	    (flags & LINUX_CSIGNAL) != SIGCHLD || a1)
		return -EINVAL;
	return do_fork(false);
}

/* Copy a NULL-terminated user array of strings into one kernel block. */
static int copy_strings(uintptr_t uarr, char **block, size_t *used, char ***list, unsigned *count)
{
	*count = 0;
	if (!uarr)
		return 0;
	for (unsigned i = 0;; i++) {
		uint64_t uptr;
		if (i >= ARG_COUNT_MAX)
			return -E2BIG;
		if (copyin(&uptr, uarr + i * sizeof(uptr), sizeof(uptr)))
			return -EFAULT;
		if (!uptr)
			break;
		int64_t n = copyin_str(*block + *used, uptr, ARG_BYTES_MAX - *used);
		if (n == -ENAMETOOLONG)
			return -E2BIG;
		if (n < 0)
			return (int)n;
		(*list)[(*count)++] = *block + *used;
		*used += (size_t)n + 1;
	}
	return 0;
}

SYSCALL(execve)
{
	struct process *p = proc_current();
	char *abs = NULL;
	char *strings = kmalloc(ARG_BYTES_MAX);
	char **argv = kmalloc(ARG_COUNT_MAX * sizeof(char *));
	char **envp = kmalloc(ARG_COUNT_MAX * sizeof(char *));
	unsigned argc = 0, envc = 0;
	size_t used = 0;
	int64_t r = (strings && argv && envp) ? 0 : -ENOMEM;
	if (!r)
		r = path_from_user(p, LINUX_AT_FDCWD, a0, false, &abs);
	if (r >= 0)
		SDT_PROBE1_P(proc, exec, abs);
	if (r >= 0)
		r = copy_strings(a1, &strings, &used, &argv, &argc);
	if (r >= 0)
		r = copy_strings(a2, &strings, &used, &envp, &envc);
	struct trap_frame *frame = syscall_frame(), next;
	if (r >= 0)
		r = exec_load(p, abs, argv, argc, envp, envc, &next);
	if (r >= 0) {
		proc_set_name(p, abs);
		proc_set_psargs(p, argv, argc);
		fd_close_on_exec(p);
		for (int sig = 0; sig < NSIG_LINUX; sig++)
			if (p->actions[sig].handler != LINUX_SIG_IGN)
				p->actions[sig] = (struct sigaction_rec){ 0 };
		arch_thread_user_init(thread_current());	/* reset FPU state and TLS */
		*frame = next;
		SDT_PROBE0_P(proc, exec__success);
	} else {
		SDT_PROBE1_P(proc, exec__failure, -r);
	}
	kfree(abs);
	kfree(strings);
	kfree(argv);
	kfree(envp);
	/* On success the frame is the new program's: its result register must stay 0. */
	return r < 0 ? r : 0;
}

SYSCALL(exit)
{
	proc_exit(WAIT_STATUS_EXITED((int)a0));
}

SYSCALL(exit_group)
{
	proc_exit(WAIT_STATUS_EXITED((int)a0));
}

SYSCALL(getpid)
{
	return proc_pid(proc_current());
}

SYSCALL(gettid)
{
	return proc_pid(proc_current());	/* one thread per process: its id is the pid */
}

SYSCALL(getppid)
{
	return proc_ppid(proc_current());
}

SYSCALL(set_tid_address)
{
	proc_current()->clear_child_tid = a0;
	return proc_pid(proc_current());
}

SYSCALL(getuid)
{
	return 0;
}

SYSCALL(geteuid)
{
	return 0;
}

SYSCALL(getgid)
{
	return 0;
}

SYSCALL(getegid)
{
	return 0;
}
