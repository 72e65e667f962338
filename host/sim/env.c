// SPDX-License-Identifier: BSD-2-Clause
/*
 * What the kernel's portable cache, graft API and replay code expect of
 * their environment, on the host (the current instance is current.c's):
 * transactions and the graft API's general functions. A graft policy runs here in a
 * transaction as in the kernel (kernel/graft/txn.c): its API changes
 * log undo records; an abort (graft_abort, an API call it may not
 * make, a refused result, a fault, or running past its time budget)
 * undoes them and the default answers. Nesting follows the kernel's: an
 * inner commit hands its records to the enclosing transaction, an inner
 * abort undoes only its own.
 *
 * Single-threaded: one process replays one instance at a time.
 */
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
#include <scion/txn.h>
#include "sim_host.h"

#define HOST_UNDO_MAX 4096
#define TICK_MS       50	/* the budget clock's period */
#define BUDGET_TICKS  4		/* ticks one graft invocation may span on the host */

struct undo_record {
	void (*undo)(uint64_t a, uint64_t b);
	uint64_t a, b;
};

struct host_txn {
	sigjmp_buf jmp;
	unsigned undo_base;
	const char *policy;
	char why[160];
};

static struct undo_record undo_log[HOST_UNDO_MAX];
static unsigned nundo;
static struct host_txn *txns[TXN_MAX_DEPTH];
static unsigned depth;
static volatile sig_atomic_t in_graft;
/* The budget: the outermost invocation's number, and the ticks it has spanned. */
static volatile uint64_t invocation;
static uint64_t invocation_at_tick;
static unsigned ticks_spanned;

__attribute__((noreturn)) static void abort_innermost(void)
{
	siglongjmp(txns[depth - 1]->jmp, 1);
}

void txn_log_undo(void (*undo)(uint64_t a, uint64_t b), uint64_t a, uint64_t b)
{
	if (!depth)
		return;
	if (nundo == HOST_UNDO_MAX)
		txn_abort_self("more than %d changes in one invocation", HOST_UNDO_MAX);
	undo_log[nundo++] = (struct undo_record){ undo, a, b };
}

void txn_abort_self(const char *reason, ...)
{
	va_list ap;
	if (!depth) {
		fprintf(stderr, "scion-sim: txn_abort_self outside a graft\n");
		abort();
	}
	va_start(ap, reason);
	vsnprintf(txns[depth - 1]->why, sizeof(txns[depth - 1]->why), reason, ap);
	va_end(ap);
	abort_innermost();
}

void graft_abort(const char *reason)
{
	txn_abort_self("%s", reason);
}

unsigned graft_nesting(void)
{
	return depth;
}

int graft_lock(unsigned id)
{
	return id < GRAFT_LOCKS ? 0 : -22;	/* one thread: every lock is free */
}

uint64_t graft_cycles(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

uint64_t graft_tid(void)
{
	return 1;
}

unsigned graft_cpu(void)
{
	return 0;
}

void graft_log(const char *msg)
{
	if (sim_verbose)
		fprintf(stderr, "graft: %s\n", msg);
}

/*
 * A fault inside a graft aborts it, as in the kernel; so does the budget
 * clock when one invocation spans BUDGET_TICKS of its ticks. A periodic
 * timer started once costs no system call per invocation.
 */
static void on_signal(int sig)
{
	if (sig == SIGALRM) {
		if (!in_graft || invocation != invocation_at_tick) {
			invocation_at_tick = invocation;
			ticks_spanned = 0;
			return;
		}
		if (++ticks_spanned < BUDGET_TICKS)
			return;
	}
	if (!in_graft || !depth) {
		signal(sig, SIG_DFL);
		raise(sig);
		return;
	}
	snprintf(txns[depth - 1]->why, sizeof(txns[depth - 1]->why), "%s",
		 sig == SIGALRM ? "ran past its time budget" : strsignal(sig));
	abort_innermost();
}

void sim_env_init(void)
{
	struct sigaction sa = { .sa_handler = on_signal };
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = SA_NODEFER | SA_RESTART;	/* the budget clock must not fail a write */
	sigaction(SIGSEGV, &sa, NULL);
	sigaction(SIGBUS, &sa, NULL);
	sigaction(SIGFPE, &sa, NULL);
	sigaction(SIGILL, &sa, NULL);
	sigaction(SIGALRM, &sa, NULL);
	struct itimerval t = { .it_interval = { .tv_usec = TICK_MS * 1000 },
			       .it_value = { .tv_usec = TICK_MS * 1000 } };
	setitimer(ITIMER_REAL, &t, NULL);
}

bool sim_txn_run(const char *policy, uint64_t (*call)(const uint64_t args[6]),
		 const uint64_t args[6], const char *(*check)(uint64_t result), uint64_t *result)
{
	struct host_txn t = { .undo_base = nundo, .policy = policy };

	if (depth == TXN_MAX_DEPTH)
		return false;		/* as the kernel: too deep, the default answers */
	txns[depth++] = &t;
	/* No mask to save: SA_NODEFER leaves it as it was when a handler jumps here. */
	if (sigsetjmp(t.jmp, 0) == 0) {
		if (depth == 1)
			invocation++;
		in_graft = 1;
		uint64_t r = call(args);
		const char *refused = check ? check(r) : NULL;
		if (refused)
			txn_abort_self("result %lld refused: %s", (long long)(int64_t)r, refused);
		if (depth == 1)
			nundo = 0;	/* the outermost commit forgets the log */
		depth--;	/* an inner commit leaves its records to the enclosing one */
		in_graft = depth > 0;
		*result = r;
		return true;
	}
	while (nundo > t.undo_base) {
		nundo--;
		undo_log[nundo].undo(undo_log[nundo].a, undo_log[nundo].b);
	}
	depth--;
	in_graft = depth > 0;
	sim_note_abort(policy, t.why);
	return false;
}

/* glibc 2.36 has no strlcpy; snprintf keeps the kernel's contract (returns strlen(src)). */
size_t strlcpy(char *dst, const char *src, size_t size)
{
	return (size_t)snprintf(dst, size, "%s", src);
}
