// SPDX-License-Identifier: BSD-2-Clause
/*
 * signals: what Linux does with the signal calls this kernel starts
 * with. A child killed by SIGKILL or SIGTERM from its parent shows
 * WIFSIGNALED with that signal; kill(pid, 0) tells whether a process
 * exists (ESRCH once it is reaped); kill's EINVAL; rt_sigaction and
 * rt_sigprocmask return 0 and give back what was set before (handler,
 * flags, mask; SIGKILL and SIGSTOP can be neither caught nor blocked:
 * EINVAL for the one, silently left out of the mask for the other) and
 * their EINVAL and EFAULT paths. No handler runs: delivery comes later.
 */
#define _GNU_SOURCE
#include <signal.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include "check.h"

#define SIGSET_BYTES 8	/* the kernel's sigset_t: 64 signals */

struct k_sigaction {
	void (*handler)(int);
	unsigned long flags;
	void (*restorer)(void);
	uint64_t mask;
};

static void handler(int sig)
{
	(void)sig;
}

static void waiting_child_killed_by(int sig)
{
	pid_t pid = fork();
	if (pid == 0) {
		for (;;)
			pause();
	}
	CHECK_EQ(kill(pid, 0), 0, "kill(child, 0): it exists");
	CHECK_EQ(kill(pid, sig), 0, "kill the child");
	int status;
	CHECK_EQ(waitpid(pid, &status, 0), pid, "wait for the killed child");
	CHECK(WIFSIGNALED(status) && WTERMSIG(status) == sig, "child killed by signal %d: status "
	      "0x%x", sig, status);
	CHECK_ERR(kill(pid, 0), ESRCH, "kill(reaped child, 0)");
}

static void kills(void)
{
	waiting_child_killed_by(SIGKILL);
	waiting_child_killed_by(SIGTERM);
	/* A child that spins rather than sleeps dies too. */
	pid_t pid = fork();
	if (pid == 0)
		for (;;)
			;
	CHECK_EQ(kill(pid, SIGKILL), 0, "kill a spinning child");
	int status;
	CHECK_EQ(waitpid(pid, &status, 0), pid, "wait for it");
	CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL, "spinning child status 0x%x",
	      status);
	CHECK_EQ(kill(getpid(), 0), 0, "kill(self, 0)");
	CHECK_ERR(kill(getpid(), 999), EINVAL, "kill with signal 999");
	CHECK_ERR(kill(getpid(), -1), EINVAL, "kill with signal -1");
	CHECK_ERR(kill(0x3ffffff0, SIGTERM), ESRCH, "kill a pid nobody has");
	CHECK_ERR(kill(0x3ffffff0, 0), ESRCH, "kill(pid nobody has, 0)");
}

static void actions(void)
{
	struct sigaction sa, old;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = handler;
	sa.sa_flags = SA_RESTART;
	sigemptyset(&sa.sa_mask);
	sigaddset(&sa.sa_mask, SIGUSR2);
	CHECK_EQ(sigaction(SIGUSR1, &sa, &old), 0, "sigaction SIGUSR1");
	CHECK(old.sa_handler == SIG_DFL, "SIGUSR1's first action is SIG_DFL");
	CHECK_EQ(sigaction(SIGUSR1, NULL, &old), 0, "sigaction query");
	CHECK(old.sa_handler == handler && (old.sa_flags & SA_RESTART) &&
	      sigismember(&old.sa_mask, SIGUSR2) && !sigismember(&old.sa_mask, SIGINT),
	      "the action comes back: handler %p flags 0x%x", (void *)old.sa_handler,
	      (unsigned)old.sa_flags);
	sa.sa_handler = SIG_IGN;
	CHECK_EQ(sigaction(SIGUSR1, &sa, &old), 0, "sigaction SIG_IGN");
	CHECK(old.sa_handler == handler, "the old action is given back when replaced");
	sa.sa_handler = SIG_DFL;
	sigaction(SIGUSR1, &sa, NULL);

	/* The raw call, with the kernel's structure and sigset size. */
	struct k_sigaction k = { .handler = SIG_IGN, .flags = 0x04000000 /* SA_RESTORER */,
				 .restorer = (void (*)(void))handler, .mask = 1ul << (SIGINT - 1) };
	struct k_sigaction kold;
	CHECK_EQ(syscall(SYS_rt_sigaction, SIGUSR2, &k, NULL, SIGSET_BYTES), 0,
		 "rt_sigaction SIGUSR2");
	CHECK_EQ(syscall(SYS_rt_sigaction, SIGUSR2, NULL, &kold, SIGSET_BYTES), 0,
		 "rt_sigaction query");
	CHECK(kold.handler == SIG_IGN && kold.flags == k.flags && kold.restorer == k.restorer &&
	      kold.mask == k.mask, "rt_sigaction round trip: handler %p flags 0x%lx mask 0x%lx",
	      (void *)kold.handler, kold.flags, (unsigned long)kold.mask);
	k.handler = SIG_DFL;
	syscall(SYS_rt_sigaction, SIGUSR2, &k, NULL, SIGSET_BYTES);

	CHECK_ERR(syscall(SYS_rt_sigaction, SIGKILL, &k, NULL, SIGSET_BYTES), EINVAL,
		  "rt_sigaction on SIGKILL");
	CHECK_ERR(syscall(SYS_rt_sigaction, SIGSTOP, &k, NULL, SIGSET_BYTES), EINVAL,
		  "rt_sigaction on SIGSTOP");
	CHECK_EQ(syscall(SYS_rt_sigaction, SIGKILL, NULL, &kold, SIGSET_BYTES), 0,
		 "rt_sigaction query of SIGKILL is allowed");
	CHECK_ERR(syscall(SYS_rt_sigaction, 0, NULL, &kold, SIGSET_BYTES), EINVAL,
		  "rt_sigaction on signal 0");
	CHECK_ERR(syscall(SYS_rt_sigaction, 65, NULL, &kold, SIGSET_BYTES), EINVAL,
		  "rt_sigaction on signal 65");
	CHECK_ERR(syscall(SYS_rt_sigaction, SIGUSR1, &k, NULL, 16), EINVAL,
		  "rt_sigaction with a sigset size of 16");
	CHECK_ERR(syscall(SYS_rt_sigaction, SIGUSR1, (void *)1, NULL, SIGSET_BYTES), EFAULT,
		  "rt_sigaction from (void *)1");
	CHECK_ERR(syscall(SYS_rt_sigaction, SIGUSR1, NULL, (void *)0xffff800000000000ul,
			  SIGSET_BYTES), EFAULT, "rt_sigaction into a kernel address");
}

static void masks(void)
{
	sigset_t set, old;
	uint64_t initial = 0;
	syscall(SYS_rt_sigprocmask, SIG_BLOCK, NULL, &initial, SIGSET_BYTES);
	CHECK(!(initial & (1ul << (SIGUSR1 - 1))), "SIGUSR1 blocked at the start (by whoever "
	      "started this program)");
	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	sigaddset(&set, SIGKILL);
	sigaddset(&set, SIGSTOP);
	CHECK_EQ(sigprocmask(SIG_BLOCK, &set, &old), 0, "block SIGUSR1 (and try SIGKILL, SIGSTOP)");
	CHECK(!sigismember(&old, SIGUSR1), "SIGUSR1 was not blocked before");
	CHECK_EQ(sigprocmask(SIG_SETMASK, NULL, &old), 0, "query the mask");
	CHECK(sigismember(&old, SIGUSR1) && !sigismember(&old, SIGKILL) &&
	      !sigismember(&old, SIGSTOP), "mask has SIGUSR1 %d, SIGKILL %d, SIGSTOP %d; expected "
	      "1, 0, 0", sigismember(&old, SIGUSR1), sigismember(&old, SIGKILL),
	      sigismember(&old, SIGSTOP));
	/* A blocked pending SIGUSR1 does nothing yet; a child shows the mask is inherited. */
	pid_t pid = fork();
	if (pid == 0) {
		sigset_t m;
		sigprocmask(SIG_SETMASK, NULL, &m);
		_exit(sigismember(&m, SIGUSR1) ? 0 : 1);
	}
	int status;
	waitpid(pid, &status, 0);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "a forked child inherits the mask");
	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	CHECK_EQ(sigprocmask(SIG_UNBLOCK, &set, &old), 0, "unblock SIGUSR1");
	CHECK(sigismember(&old, SIGUSR1), "the old mask had SIGUSR1");
	sigprocmask(SIG_SETMASK, NULL, &old);
	CHECK(!sigismember(&old, SIGUSR1), "SIGUSR1 unblocked");

	uint64_t k = 1ul << (SIGUSR1 - 1), kold = 0;
	CHECK_ERR(syscall(SYS_rt_sigprocmask, 7, &k, NULL, SIGSET_BYTES), EINVAL,
		  "rt_sigprocmask with how 7");
	CHECK_ERR(syscall(SYS_rt_sigprocmask, SIG_BLOCK, &k, NULL, 7), EINVAL,
		  "rt_sigprocmask with a sigset size of 7");
	CHECK_ERR(syscall(SYS_rt_sigprocmask, SIG_BLOCK, (void *)1, NULL, SIGSET_BYTES), EFAULT,
		  "rt_sigprocmask from (void *)1");
	CHECK_ERR(syscall(SYS_rt_sigprocmask, SIG_BLOCK, NULL, (void *)0xffff800000000000ul,
			  SIGSET_BYTES), EFAULT, "rt_sigprocmask into a kernel address");
	CHECK_EQ(syscall(SYS_rt_sigprocmask, SIG_BLOCK, NULL, &kold, SIGSET_BYTES), 0,
		 "rt_sigprocmask with no new set only reads");
	CHECK_EQ(kold, initial, "the mask after unblocking (as at the start)");
}

int main(int argc, char **argv)
{
	check_start("signals", argc, argv);
	kills();
	actions();
	masks();
	return check_done();
}
