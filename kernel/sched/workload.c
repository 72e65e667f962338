// SPDX-License-Identifier: BSD-2-Clause
/*
 * Shell: `sched run [n=N] [rounds=R] [compute=C] [sleep=S] [hogs=H
 * hog-ticks=T]`, a workload of threads that compute and sleep, for
 * recording the scheduler and replaying its trace against other
 * policies. Worker k (0 .. N-1) repeats R rounds of: compute until it
 * has been charged C * (1 + k % 3) more timer ticks of CPU time, then
 * (except after the last round) sleep S * (1 + k % 2) ticks; then it
 * ends. Mixed CPU-bound and sleepy threads, so that policies differ.
 * With hogs=H, H more threads each compute T ticks in one burst: with
 * n=1 compute=1, an interactive thread behind compute threads (the
 * adaptation loop's scheduler example). The shell thread waits for them
 * all and prints what each did: the CPU bursts in the trace are exactly
 * the compute ticks, whatever the policy.
 */
#include <scion/sched.h>
#include <scion/thread.h>
#include <scion/clock.h>
#include <scion/shell.h>
#include <scion/printk.h>
#include <scion/string.h>
#include <scion/format.h>
#include <scion/errno.h>
#include <scion/cpu.h>
#include <arch/cpu.h>
#include "sched_internal.h"

#define RUN_MAX_THREADS 16
#define RUN_MAX_ROUNDS  1000
#define RUN_MAX_TICKS   1000
#define RUN_MAX_HOG_TICKS 100000

struct run_worker {
	unsigned index, rounds;
	uint64_t compute, sleep;	/* ticks per round */
	uint64_t charged;		/* ticks charged while it ran, in all */
	uint64_t done_tick;		/* clock_ticks() when it finished */
};

static void compute_ticks(uint64_t ticks)
{
	struct thread *me = thread_current();
	uint64_t target = READ_ONCE(me->se.ticks_run) + ticks;
	while (READ_ONCE(me->se.ticks_run) < target)
		cpu_relax();
}

static void run_worker(void *arg)
{
	struct run_worker *w = arg;
	uint64_t start = READ_ONCE(thread_current()->se.ticks_run);

	for (unsigned r = 0; r < w->rounds; r++) {
		compute_ticks(w->compute);
		if (r + 1 < w->rounds)
			thread_sleep_ticks(w->sleep);
	}
	w->charged = READ_ONCE(thread_current()->se.ticks_run) - start;
	w->done_tick = clock_ticks();
}

int sched_workload_run(int argc, char **argv)
{
	static const char *const keys[] = { "n", "rounds", "compute", "sleep", "hogs",
					    "hog-ticks" };
	uint64_t v[] = { 4, 3, 2, 2, 0, 100 };
	const uint64_t min[] = { 1, 1, 1, 1, 0, 1 };
	const uint64_t max[] = { RUN_MAX_THREADS, RUN_MAX_ROUNDS, RUN_MAX_TICKS, RUN_MAX_TICKS,
				 RUN_MAX_THREADS, RUN_MAX_HOG_TICKS };
	_Static_assert(ARRAY_SIZE(keys) == ARRAY_SIZE(v), "a key without a default");

	for (int a = 2; a < argc; a++) {
		const char *eq = strchr(argv[a], '=');
		unsigned k = 0;
		while (eq && k < ARRAY_SIZE(keys) &&
		       (strlen(keys[k]) != (size_t)(eq - argv[a]) ||
			strncmp(argv[a], keys[k], (size_t)(eq - argv[a]))))
			k++;
		if (!eq || k == ARRAY_SIZE(keys) || parse_u64(eq + 1, &v[k], false) ||
		    v[k] < min[k] || v[k] > max[k]) {
			printk("sched: '%s': give n=1..%u rounds=1..%u compute=1..%u sleep=1..%u "
			       "hogs=0..%u hog-ticks=1..%u\n", argv[a], RUN_MAX_THREADS,
			       RUN_MAX_ROUNDS, RUN_MAX_TICKS, RUN_MAX_TICKS, RUN_MAX_THREADS,
			       RUN_MAX_HOG_TICKS);
			return -EINVAL;
		}
	}
	unsigned n = (unsigned)(v[0] + v[4]);
	if (n > RUN_MAX_THREADS) {
		printk("sched: n + hogs is at most %u\n", RUN_MAX_THREADS);
		return -EINVAL;
	}
	struct run_worker workers[RUN_MAX_THREADS];
	struct thread *threads[RUN_MAX_THREADS];
	uint64_t start = clock_ticks();
	unsigned created = 0;

	for (; created < n; created++) {
		unsigned k = created;
		if (k < v[0])
			workers[k] = (struct run_worker){ .index = k, .rounds = (unsigned)v[1],
							  .compute = v[2] * (1 + k % 3),
							  .sleep = v[3] * (1 + k % 2) };
		else	/* a hog: one burst */
			workers[k] = (struct run_worker){ .index = k, .rounds = 1, .compute = v[5] };
		threads[k] = thread_create("sched-run", run_worker, &workers[k], -1);
		if (!threads[k])
			break;
	}
	for (unsigned k = 0; k < created; k++)
		thread_join(threads[k]);
	if (created < n) {
		printk("sched: run: out of memory after %u threads\n", created);
		return -ENOMEM;
	}
	uint64_t computed = 0, last = start;
	for (unsigned k = 0; k < n; k++) {
		computed += workers[k].charged;
		last = workers[k].done_tick > last ? workers[k].done_tick : last;
	}
	printk("sched: run of %u threads on %u CPUs: %llu ticks computed, all done after %llu "
	       "ticks\n", n, cpu_count(), (unsigned long long)computed,
	       (unsigned long long)(last - start));
	for (unsigned k = 0; k < n; k++)
		printk("  worker %u: %u rounds of %llu ticks, sleeping %llu between: %llu ticks "
		       "charged, done after %llu\n", k, workers[k].rounds,
		       (unsigned long long)workers[k].compute, (unsigned long long)workers[k].sleep,
		       (unsigned long long)workers[k].charged,
		       (unsigned long long)(workers[k].done_tick - start));
	return 0;
}
