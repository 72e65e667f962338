// SPDX-License-Identifier: BSD-2-Clause
/*
 * sighandler: signal handlers run as on Linux. A handler gets its
 * signal number and siginfo (sender's pid, si_code SI_USER or
 * SI_TKILL); the interrupted code's registers and FPU state come back
 * after it returns; its own signal is blocked while it runs;
 * SA_RESETHAND makes the action the default again; a blocked signal
 * waits, pending, until it is unblocked; pause and sigsuspend return
 * EINTR after a handler ran (sigsuspend's mask undone); a fault's
 * handler gets the faulting address and leaves with siglongjmp; a
 * handler does not save a process from SIGKILL.
 */
#define _GNU_SOURCE
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include "check.h"

static volatile sig_atomic_t runs, last_sig, last_code, last_pid, usr1_blocked_inside;
static volatile uintptr_t last_addr;
static sigjmp_buf fault_return;

static void on_signal(int sig, siginfo_t *si, void *uc)
{
	(void)uc;
	sigset_t now;
	runs++;
	last_sig = sig;
	last_code = si->si_code;
	last_pid = si->si_pid;
	sigprocmask(SIG_BLOCK, NULL, &now);
	usr1_blocked_inside = sigismember(&now, SIGUSR1);
	volatile double x = 2.75;	/* the handler's own FPU work */
	x = x * x + 1.0 / x;
	(void)x;
}

static void on_fault(int sig, siginfo_t *si, void *uc)
{
	(void)uc;
	last_sig = sig;
	last_code = si->si_code;
	last_addr = (uintptr_t)si->si_addr;
	siglongjmp(fault_return, 1);
}

static void install(int sig, void (*fn)(int, siginfo_t *, void *), int flags)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = fn;
	sa.sa_flags = SA_SIGINFO | flags;
	sigemptyset(&sa.sa_mask);
	CHECK(sigaction(sig, &sa, NULL) == 0, "sigaction %d", sig);
}

static void handler_runs_and_returns(void)
{
	install(SIGUSR1, on_signal, 0);
	volatile double d = 1.5;
	volatile long kept = 0x1234567890abcdefL;
	runs = 0;
	CHECK_EQ(raise(SIGUSR1), 0, "raise SIGUSR1");
	CHECK(runs == 1, "the handler ran %d times, expected once", (int)runs);
	CHECK(last_sig == SIGUSR1, "handler's signal %d, expected SIGUSR1", (int)last_sig);
	CHECK(last_code == SI_TKILL, "si_code %d, expected SI_TKILL (raise)", (int)last_code);
	CHECK(last_pid == getpid(), "si_pid %d, expected our pid %d", (int)last_pid, getpid());
	CHECK(usr1_blocked_inside, "SIGUSR1 was not blocked inside its handler");
	CHECK(d * 2 == 3.0, "the FPU state came back changed: %f", d * 2);
	CHECK(kept == 0x1234567890abcdefL, "a register came back changed");
	sigset_t now;
	sigprocmask(SIG_BLOCK, NULL, &now);
	CHECK(!sigismember(&now, SIGUSR1), "SIGUSR1 still blocked after the handler returned");
}

static void reset_hand(void)
{
	install(SIGUSR2, on_signal, SA_RESETHAND);
	runs = 0;
	raise(SIGUSR2);
	struct sigaction now;
	sigaction(SIGUSR2, NULL, &now);
	CHECK(runs == 1 && now.sa_handler == SIG_DFL, "SA_RESETHAND: %d runs, handler %p",
	      (int)runs, (void *)now.sa_handler);
}

static void blocked_waits(void)
{
	install(SIGUSR1, on_signal, 0);
	sigset_t set, pending;
	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	sigprocmask(SIG_BLOCK, &set, NULL);
	runs = 0;
	raise(SIGUSR1);
	CHECK(runs == 0, "a blocked signal's handler ran");
	sigpending(&pending);
	CHECK(sigismember(&pending, SIGUSR1), "the blocked signal is not pending");
	sigprocmask(SIG_UNBLOCK, &set, NULL);
	CHECK(runs == 1, "unblocking did not run the handler (%d runs)", (int)runs);
}

/* A child sends sig to us after a short sleep. */
static pid_t send_later(int sig)
{
	pid_t parent = getpid(), c = fork();
	if (c == 0) {
		struct timespec ts = { 0, 5 * 1000 * 1000 };
		nanosleep(&ts, NULL);
		kill(parent, sig);
		_exit(0);
	}
	return c;
}

static void pause_and_suspend(void)
{
	install(SIGUSR1, on_signal, 0);
	runs = 0;
	pid_t c = send_later(SIGUSR1);
	CHECK_ERR(pause(), EINTR, "pause until a signal");
	CHECK(runs == 1 && last_code == SI_USER && last_pid == c,
	      "after pause: %d runs, si_code %d, si_pid %d (child %d)", (int)runs, (int)last_code,
	      (int)last_pid, c);
	waitpid(c, NULL, 0);

	sigset_t block, empty, now;
	sigemptyset(&block);
	sigaddset(&block, SIGUSR1);
	sigemptyset(&empty);
	sigprocmask(SIG_BLOCK, &block, NULL);
	runs = 0;
	c = send_later(SIGUSR1);
	CHECK_ERR(sigsuspend(&empty), EINTR, "sigsuspend until a signal");
	CHECK(runs == 1, "sigsuspend: %d runs", (int)runs);
	sigprocmask(SIG_BLOCK, NULL, &now);
	CHECK(sigismember(&now, SIGUSR1), "sigsuspend did not put the mask back");
	sigprocmask(SIG_UNBLOCK, &block, NULL);
	waitpid(c, NULL, 0);
}

static void fault_handler(void)
{
	install(SIGSEGV, on_fault, 0);
	char *page = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	CHECK(page != MAP_FAILED, "mmap a read-only page");
	if (sigsetjmp(fault_return, 1) == 0) {
		*(volatile char *)(page + 8) = 1;
		CHECK(0, "writing a read-only page did not fault");
	}
	CHECK(last_sig == SIGSEGV && last_code == SEGV_ACCERR && last_addr == (uintptr_t)(page + 8),
	      "fault handler: signal %d, si_code %d, si_addr %#lx (expected %p)", (int)last_sig,
	      (int)last_code, (unsigned long)last_addr, (void *)(page + 8));
	signal(SIGSEGV, SIG_DFL);
}

static void kill_beats_handler(void)
{
	pid_t c = fork();
	if (c == 0) {
		install(SIGTERM, on_signal, 0);
		for (;;)
			pause();
	}
	struct timespec ts = { 0, 5 * 1000 * 1000 };
	nanosleep(&ts, NULL);
	kill(c, SIGTERM);	/* caught: the child lives on */
	nanosleep(&ts, NULL);
	int st = 0;
	CHECK_EQ(waitpid(c, &st, WNOHANG), 0, "a child whose handler caught SIGTERM still runs");
	kill(c, SIGKILL);
	CHECK_EQ(waitpid(c, &st, 0), c, "wait for the killed child");
	CHECK(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL, "child status %#x, expected SIGKILL", st);
}

int main(int argc, char **argv)
{
	check_start("sighandler", argc, argv);
	handler_runs_and_returns();
	reset_hand();
	blocked_waits();
	pause_and_suspend();
	fault_handler();
	kill_beats_handler();
	return check_done();
}
