// SPDX-License-Identifier: BSD-2-Clause
/*
 * Signals, as far as Scion takes them: kill and the kernel's own
 * signals (faults, SIGPIPE, SIGCHLD, Ctrl-C) with Linux's default
 * actions, SIG_IGN honoured, and rt_sigaction / rt_sigprocmask
 * recorded so that programs that set them up run. A signal whose
 * default action is to terminate ends the process on its way back to
 * user mode (proc_return_to_user); one whose default is to be ignored
 * is dropped. Handlers are recorded but not run: a signal that would
 * run one terminates the process as its default does, and says so.
 * Stop and continue are not implemented (SIGSTOP is refused by kill).
 * proc:::signal-send (arg0 the target pid, arg1 the signal) fires for
 * every signal sent, by kill or by the kernel, in the sender's context.
 */
#include <scion/errno.h>
#include <scion/printk.h>
#include <scion/sched.h>
#include <scion/sdt.h>
#include <scion/string.h>
#include "proc_internal.h"

/* Signals whose default action is to ignore them. */
int signal_default_is_ignore(int sig)
{
	return sig == SIGCHLD || sig == SIGCONT || sig == 23 /* SIGURG */ || sig == 28 /* SIGWINCH */;
}

/*
 * signal_send - deliver sig to p: record it, and if it terminates p, set
 *   p's fatal signal and wake p's thread from whatever sleep it is in.
 * Caller's context: any (interrupt handlers included); takes proc_lock.
 */
void signal_send(struct process *p, int sig)
{
	if (sig <= 0 || sig > NSIG_LINUX)
		return;
	SDT_PROBE2_P(proc, signal__send, p->pid, sig);
	const struct sigaction_rec *a = &p->actions[sig - 1];
	bool fatal;
	if (sig == SIGKILL)
		fatal = true;
	else if (a->handler == LINUX_SIG_IGN)
		fatal = false;
	else if (a->handler == LINUX_SIG_DFL)
		fatal = !signal_default_is_ignore(sig);
	else
		fatal = !signal_default_is_ignore(sig);	/* handlers are not run (see above) */
	__atomic_fetch_or(&p->pending, 1ull << (sig - 1), __ATOMIC_RELAXED);
	if (!fatal)
		return;
	int none = 0;
	__atomic_compare_exchange_n(&p->fatal_signal, &none, sig, false, __ATOMIC_RELAXED,
				    __ATOMIC_RELAXED);
	irqflags_t f = spin_lock_irqsave(&proc_lock);
	if (p->thread)
		thread_wake(p->thread);
	spin_unlock_irqrestore(&proc_lock, f);
}

int proc_kill(int pid, int sig)
{
	if (sig < 0 || sig > NSIG_LINUX || sig == SIGSTOP)
		return -EINVAL;
	irqflags_t f = spin_lock_irqsave(&proc_lock);
	struct process *p = proc_find_locked(pid);
	bool alive = p && p->state == PROC_ALIVE;
	spin_unlock_irqrestore(&proc_lock, f);
	if (!alive)
		return -ESRCH;
	/*
	 * p cannot be freed before signal_send is done with it: a process
	 * is freed by its own exit or by a reaper, and both look at
	 * fatal_signal only through proc_lock, which signal_send takes.
	 */
	if (sig)
		signal_send(p, sig);
	return 0;
}

SYSCALL(kill)
{
	int pid = (int)a0, sig = (int)a1;
	if (pid <= 0)
		pid = pid == 0 || pid == -1 ? proc_pid(proc_current()) : -pid;	/* groups: the caller's own */
	return proc_kill(pid, sig);
}

SYSCALL(tkill)
{
	return proc_kill((int)a0, (int)a1);
}

SYSCALL(tgkill)
{
	return proc_kill((int)a1, (int)a2);
}

#define SIGSET_SIZE 8

SYSCALL(rt_sigaction)
{
	int sig = (int)a0;
	struct process *p = proc_current();
	if (sig <= 0 || sig > NSIG_LINUX || a3 != SIGSET_SIZE)
		return -EINVAL;
	struct sigaction_rec *a = &p->actions[sig - 1];
	if (a2 && copyout(a2, a, sizeof(*a)))
		return -EFAULT;
	if (a1) {
		if (sig == SIGKILL || sig == SIGSTOP)
			return -EINVAL;
		struct sigaction_rec n;
		if (copyin(&n, a1, sizeof(n)))
			return -EFAULT;
		*a = n;
	}
	return 0;
}

#define LINUX_SIG_BLOCK 0
#define LINUX_SIG_UNBLOCK 1
#define LINUX_SIG_SETMASK 2
#define UNBLOCKABLE ((1ull << (SIGKILL - 1)) | (1ull << (SIGSTOP - 1)))

SYSCALL(rt_sigprocmask)
{
	struct process *p = proc_current();
	if (a3 != SIGSET_SIZE)
		return -EINVAL;
	uint64_t set = 0, old = p->blocked;
	if (a1 && copyin(&set, a1, sizeof(set)))
		return -EFAULT;
	if (a1) {
		switch (a0) {
		case LINUX_SIG_BLOCK: p->blocked |= set; break;
		case LINUX_SIG_UNBLOCK: p->blocked &= ~set; break;
		case LINUX_SIG_SETMASK: p->blocked = set; break;
		default: return -EINVAL;
		}
		p->blocked &= ~UNBLOCKABLE;
	}
	if (a2 && copyout(a2, &old, sizeof(old)))
		return -EFAULT;
	return 0;
}
