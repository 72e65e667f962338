// SPDX-License-Identifier: BSD-2-Clause
/*
 * Signals: kill and the kernel's own signals (faults, SIGPIPE, SIGCHLD,
 * Ctrl-C) with Linux's semantics for what Scion offers: a signal that
 * is ignored (SIG_IGN, or a default of ignoring) is dropped; one left
 * to a default of terminating ends the process on its way back to user
 * mode; one with a handler is delivered there, through the arch's
 * signal frame (arch/user.h), with the handler's mask in force until
 * rt_sigreturn. A blocked signal stays pending until it is unblocked
 * (SIGKILL is never blocked). A sleeping process is woken by a signal
 * it will act on, and the call it slept in returns EINTR.
 *
 * Not offered: SA_RESTART (interrupted calls always return EINTR),
 * alternate signal stacks (SA_ONSTACK, sigaltstack), stop and continue
 * (SIGSTOP is refused by kill, SIGTSTP and friends terminate), queued
 * real-time signals (a second one pending is merged with the first).
 *
 * p->pending and p->fatal_signal are atomic; p->siginfo is written
 * under proc_lock; p->actions and p->blocked are the process's own
 * thread's, read by senders without a lock (a stale read decides for a
 * signal racing with the change, as it may on Linux).
 *
 * DTrace's raise() posts from probe context, where no lock may be taken:
 * proc_signal_defer leaves the signal in p->deferred_signal and
 * proc_return_to_user sends it. DTrace's stop() likewise leaves
 * p->deferred_stop: the process then sleeps on its way back to user mode
 * (signal_stop_here) until SIGCONT continues it or a fatal signal ends it
 * (kill's SIGSTOP stays refused).
 *
 * proc:::signal-send (arg0 the target pid, arg1 the signal) fires for
 * every signal sent, by kill or by the kernel, ignored or not, in the
 * sender's context.
 */
#include <scion/errno.h>
#include <scion/printk.h>
#include <scion/sched.h>
#include <scion/sdt.h>
#include <scion/string.h>
#include <arch/cpu.h>
#include <arch/user.h>
#include "proc_internal.h"

#define SIG_BIT(sig) (1ull << ((sig) - 1))
#define LINUX_SA_RESTORER  0x04000000ull
#define LINUX_SA_NODEFER   0x40000000ull
#define LINUX_SA_RESETHAND 0x80000000ull
#define UNBLOCKABLE (SIG_BIT(SIGKILL) | SIG_BIT(SIGSTOP))

const char *signal_name(int sig)
{
	static const char *const names[] = {
		[SIGHUP] = "SIGHUP", [SIGINT] = "SIGINT", [SIGQUIT] = "SIGQUIT", [SIGILL] = "SIGILL",
		[SIGTRAP] = "SIGTRAP", [SIGABRT] = "SIGABRT", [SIGBUS] = "SIGBUS", [SIGFPE] = "SIGFPE",
		[SIGKILL] = "SIGKILL", [SIGUSR1] = "SIGUSR1", [SIGSEGV] = "SIGSEGV",
		[SIGUSR2] = "SIGUSR2", [SIGPIPE] = "SIGPIPE", [SIGALRM] = "SIGALRM",
		[SIGTERM] = "SIGTERM", [SIGCHLD] = "SIGCHLD",
	};
	return sig > 0 && sig < (int)ARRAY_SIZE(names) && names[sig] ? names[sig] : "signal";
}

/* Signals whose default action is to ignore them. */
int signal_default_is_ignore(int sig)
{
	return sig == SIGCHLD || sig == SIGCONT || sig == 23 /* SIGURG */ || sig == 28 /* SIGWINCH */;
}

static void set_fatal(struct process *p, int sig)
{
	int none = 0;
	__atomic_compare_exchange_n(&p->fatal_signal, &none, sig, false, __ATOMIC_RELAXED,
				    __ATOMIC_RELAXED);
}

/*
 * signal_send_info - deliver si->signo to p: drop it if p ignores it,
 *   else record it as pending (with si), mark p to die of it if that is
 *   its default and it is not blocked, and wake p's thread from any
 *   sleep if p will act on it now.
 * Caller's context: any (interrupt handlers included); takes proc_lock.
 */
void signal_send_info(struct process *p, const struct user_siginfo *si)
{
	int sig = si->signo;
	if (sig <= 0 || sig > NSIG_LINUX)
		return;
	SDT_PROBE3_P(proc, signal__send, p->pid, sig, p);
	if (sig == SIGCONT && __atomic_exchange_n(&p->stopped, 0, __ATOMIC_RELAXED)) {
		irqflags_t f = spin_lock_irqsave(&proc_lock);
		if (p->thread)
			thread_wake(p->thread);	/* continued, whatever SIGCONT's action */
		spin_unlock_irqrestore(&proc_lock, f);
	}
	uint64_t handler = READ_ONCE(p->actions[sig - 1].handler);
	if (sig != SIGKILL && (handler == LINUX_SIG_IGN ||
			       (handler == LINUX_SIG_DFL && signal_default_is_ignore(sig))))
		return;
	bool blocked = sig != SIGKILL && (READ_ONCE(p->blocked) & SIG_BIT(sig));
	irqflags_t f = spin_lock_irqsave(&proc_lock);
	p->siginfo[sig - 1] = *si;
	__atomic_fetch_or(&p->pending, SIG_BIT(sig), __ATOMIC_RELAXED);
	if (!blocked && (sig == SIGKILL || handler == LINUX_SIG_DFL))
		set_fatal(p, sig);
	if (!blocked && p->thread)
		thread_wake(p->thread);
	spin_unlock_irqrestore(&proc_lock, f);
}

int proc_signal_defer(int sig)
{
	if (sig <= 0 || sig > NSIG_LINUX)
		return -EINVAL;
	struct thread *t = thread_current();
	struct process *p = t ? t->proc : NULL;
	if (!p)
		return -ESRCH;
	__atomic_store_n(&p->deferred_signal, sig, __ATOMIC_RELAXED);
	return 0;
}

int proc_stop_defer(void)
{
	struct thread *t = thread_current();
	struct process *p = t ? t->proc : NULL;
	if (!p)
		return -ESRCH;
	__atomic_store_n(&p->deferred_stop, 1, __ATOMIC_RELAXED);
	return 0;
}

void signal_stop_here(struct process *p)
{
	__atomic_store_n(&p->stopped, 1, __ATOMIC_RELAXED);
	arch_irq_enable();
	while (__atomic_load_n(&p->stopped, __ATOMIC_RELAXED) && !READ_ONCE(p->fatal_signal)) {
		irqflags_t f = spin_lock_irqsave(&p->child_wq.lock);
		waitq_sleep(&p->child_wq, HZ);	/* SIGCONT and fatal signals wake the thread */
		spin_unlock_irqrestore(&p->child_wq.lock, f);
	}
	arch_irq_disable();
}

void signal_send(struct process *p, int sig)
{
	struct user_siginfo si = { .signo = sig, .code = LINUX_SI_KERNEL };
	signal_send_info(p, &si);
}

/*
 * Run the handler of the lowest pending unblocked signal of p, the
 * calling process, when f goes back to user mode: steps
 *   1. take the signal off the pending set; re-check its action (it
 *      may have changed since it was sent): ignored now, it is dropped;
 *      default now, it terminates;
 *   2. build the frame (the registers of f, the mask to restore) and
 *      copy it below the user stack; a stack it cannot be written to
 *      kills with SIGSEGV;
 *   3. point f at the handler, and put the handler's mask in force.
 * Caller's context: proc_return_to_user, interrupts masked (enabled
 * while the frame is copied).
 */
void signal_deliver(struct process *p, struct trap_frame *f)
{
	uint64_t ready = __atomic_load_n(&p->pending, __ATOMIC_RELAXED) & ~p->blocked;
	if (!ready)
		return;
	int sig = __builtin_ctzll(ready) + 1;
	/* Step 1. */
	irqflags_t fl = spin_lock_irqsave(&proc_lock);
	struct user_siginfo si = p->siginfo[sig - 1];
	__atomic_fetch_and(&p->pending, ~SIG_BIT(sig), __ATOMIC_RELAXED);
	spin_unlock_irqrestore(&proc_lock, fl);
	struct sigaction_rec *a = &p->actions[sig - 1];
	if (a->handler == LINUX_SIG_IGN || (a->handler == LINUX_SIG_DFL && signal_default_is_ignore(sig)))
		return;
	if (a->handler == LINUX_SIG_DFL) {
		set_fatal(p, sig);
		proc_return_to_user(f);	/* does not return */
	}
	/* Step 2. */
	uint64_t restore_mask = p->in_suspend ? p->suspend_mask : p->blocked;
	uint8_t buf[ARCH_SIGFRAME_MAX];
	uintptr_t addr = 0;
	size_t size = (a->flags & LINUX_SA_RESTORER) ?
		      arch_signal_frame(f, &si, a->restorer, restore_mask, buf, &addr) : 0;
	arch_irq_enable();
	int err = size ? copyout(addr, buf, size) : -EFAULT;
	arch_irq_disable();
	if (err) {
		printk("proc: pid %d (%s) killed by SIGSEGV: cannot write the frame of %s's handler%s\n",
		       p->pid, p->name, signal_name(sig),
		       size ? " below its stack pointer" : " (no SA_RESTORER)");
		p->fault_reported = true;
		set_fatal(p, SIGSEGV);
		proc_return_to_user(f);	/* does not return */
	}
	/* Step 3. */
	arch_signal_enter(f, sig, a->handler, addr);
	p->in_suspend = false;
	p->blocked |= a->mask | ((a->flags & LINUX_SA_NODEFER) ? 0 : SIG_BIT(sig));
	p->blocked &= ~UNBLOCKABLE;
	if (a->flags & LINUX_SA_RESETHAND)
		*a = (struct sigaction_rec){ 0 };
}

void proc_signal_set_mask(uint64_t mask)
{
	struct process *p = proc_current();
	p->blocked = mask & ~UNBLOCKABLE;
}

void proc_signal_bad_frame(void)
{
	struct process *p = proc_current();
	printk("proc: pid %d (%s) killed by SIGSEGV: rt_sigreturn through a bad frame\n",
	       p->pid, p->name);
	p->fault_reported = true;
	set_fatal(p, SIGSEGV);
}

/* kill with the si_code the receiver sees: SI_USER for kill, SI_TKILL for tkill and tgkill. */
static int kill_with_code(int pid, int sig, int code)
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
	 * is freed by its own exit or by a reaper, and both go through
	 * proc_lock, which signal_send takes.
	 */
	if (sig) {
		struct user_siginfo si = { .signo = sig, .code = code,
					   .pid = proc_pid(proc_current()) };
		signal_send_info(p, &si);
	}
	return 0;
}

int proc_kill(int pid, int sig)
{
	return kill_with_code(pid, sig, LINUX_SI_USER);
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
	return kill_with_code((int)a0, (int)a1, LINUX_SI_TKILL);
}

SYSCALL(tgkill)
{
	return kill_with_code((int)a1, (int)a2, LINUX_SI_TKILL);
}

#define SIGSET_SIZE 8

SYSCALL(rt_sigaction)
{
	int sig = (int)a0;
	struct process *p = proc_current();
	if (sig <= 0 || sig > NSIG_LINUX || a3 != SIGSET_SIZE)
		return -EINVAL;
	struct sigaction_rec *a = &p->actions[sig - 1];
	struct sigaction_rec n;
	if (a1) {
		if (sig == SIGKILL || sig == SIGSTOP)
			return -EINVAL;
		if (copyin(&n, a1, sizeof(n)))
			return -EFAULT;
	}
	if (a2 && copyout(a2, a, sizeof(*a)))
		return -EFAULT;
	if (a1) {
		*a = n;
		/* Ignoring a signal discards it if pending (POSIX). */
		if (n.handler == LINUX_SIG_IGN ||
		    (n.handler == LINUX_SIG_DFL && signal_default_is_ignore(sig)))
			__atomic_fetch_and(&p->pending, ~SIG_BIT(sig), __ATOMIC_RELAXED);
	}
	return 0;
}

#define LINUX_SIG_BLOCK 0
#define LINUX_SIG_UNBLOCK 1
#define LINUX_SIG_SETMASK 2

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
	/* A signal just unblocked is acted on on the way out (proc_return_to_user). */
	return 0;
}

SYSCALL(rt_sigpending)
{
	struct process *p = proc_current();
	if (a1 != SIGSET_SIZE)
		return -EINVAL;
	uint64_t set = __atomic_load_n(&p->pending, __ATOMIC_RELAXED) & p->blocked;
	return copyout(a0, &set, sizeof(set)) ? -EFAULT : 0;
}

/* Sleep until a signal the process acts on arrives; always -EINTR. */
static int64_t wait_for_signal(void)
{
	struct process *p = proc_current();
	while (!proc_signal_pending()) {
		irqflags_t f = spin_lock_irqsave(&p->child_wq.lock);
		waitq_sleep(&p->child_wq, HZ);	/* signal_send_info wakes the thread itself */
		spin_unlock_irqrestore(&p->child_wq.lock, f);
	}
	return -EINTR;
}

SYSCALL(pause)
{
	return wait_for_signal();
}

SYSCALL(rt_sigsuspend)
{
	struct process *p = proc_current();
	uint64_t mask;
	if (a1 != SIGSET_SIZE)
		return -EINVAL;
	if (copyin(&mask, a0, sizeof(mask)))
		return -EFAULT;
	p->suspend_mask = p->blocked;
	p->in_suspend = true;
	p->blocked = mask & ~UNBLOCKABLE;
	int64_t r = wait_for_signal();
	/* The handler's frame restores suspend_mask; without a handler, restore it here. */
	if (!(__atomic_load_n(&p->pending, __ATOMIC_RELAXED) & ~p->blocked)) {
		p->blocked = p->suspend_mask;
		p->in_suspend = false;
	}
	return r;
}
