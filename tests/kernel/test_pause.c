// SPDX-License-Identifier: BSD-2-Clause
/*
 * In-kernel tests of pausing threads at probes (scion/pause.h): a
 * consumer asks for a pause only in the thread whose argument matches
 * (as a D predicate would); that thread stops at the probe with its
 * registers readable while the others run to their end; the probe is
 * disabled while it is paused; resumed, it completes with the right
 * results. Where a thread cannot sleep (interrupts masked, a breakpoint
 * site) the request is refused and counted with its reason. Also the
 * `pausework` shell command the host's `scion break` test drives.
 */
#include <scion/ktest.h>
#include <scion/pause.h>
#include <scion/probe_arch.h>
#include <scion/thread.h>
#include <scion/sched.h>
#include <scion/shell.h>
#include <scion/printk.h>
#include <scion/string.h>
#include <scion/errno.h>
#include <arch/cpu.h>
#include <arch/trap.h>
#include "probe_test.h"

#define WORKERS 3
#define CALLS   40
#define PAUSED_ID 2

/* The function paused at: its argument is the worker's id. */
__noinline long pause_target(long id)
{
	__asm__ volatile("" ::: "memory");
	return id * 2 + 1;
}

struct worker {
	long id;
	long calls, wrong;		/* calls made; results that were not id * 2 + 1 */
	uint64_t tid;
	bool done;
};

static void worker_main(void *arg)
{
	struct worker *w = arg;
	WRITE_ONCE(w->tid, this_cpu()->current->tid);
	for (long i = 0; i < CALLS; i++) {
		if (pause_target(w->id) != w->id * 2 + 1)
			w->wrong++;
		WRITE_ONCE(w->calls, w->calls + 1);
		thread_sleep_ticks(1);
	}
	WRITE_ONCE(w->done, true);
}

/* Pause the thread whose first argument is the one asked for (arg). */
static void pause_when_arg(const struct probe_hit *hit, void *arg)
{
	if (trap_frame_arg(hit->regs, 0) == (uint64_t)(uintptr_t)arg)
		pause_request(hit);
}

static void find_paused(const struct paused_thread_info *p, void *arg)
{
	*(struct paused_thread_info *)arg = *p;
}

static void read_arg0(const struct trap_frame *f, void *arg)
{
	*(uint64_t *)arg = trap_frame_arg(f, 0);
}

KTEST_NEEDS(probe_pause_only_the_matching_thread, 1, FEATURE_PROBES)
{
	static struct worker workers[WORKERS];
	struct thread *threads[WORKERS];
	struct probe *p = probe_named("fbt::pause_target:entry");
	struct probe_consumer c = { .action = PROBE_HANDLER, .handler = pause_when_arg,
				    .arg = (void *)(uintptr_t)PAUSED_ID, .may_pause = true,
				    .mechanism = PROBE_MECH_JUMP };
	struct pause_stats before, after;

	KT_ASSERT(t, p && !probe_enable(p, &c), "enabling fbt::pause_target:entry failed");
	pause_get_stats(&before);
	for (int i = 0; i < WORKERS; i++) {
		workers[i] = (struct worker){ .id = i + 1 };
		threads[i] = thread_create("pause-worker", worker_main, &workers[i], -1);
		KT_ASSERT(t, threads[i], "no memory for a worker");
	}
	struct paused_thread_info seen = { 0 };
	for (int i = 0; i < 200 && !seen.tid; i++) {
		thread_sleep_ticks(1);
		pause_foreach(find_paused, &seen);
	}
	struct worker *held = &workers[PAUSED_ID - 1];
	KT_EXPECT(t, seen.tid && seen.tid == READ_ONCE(held->tid) &&
		  seen.addr == (uintptr_t)pause_target,
		  "paused: thread %llu at %#llx; want %llu at %p", (unsigned long long)seen.tid,
		  (unsigned long long)seen.addr, (unsigned long long)held->tid, pause_target);
	uint64_t arg0 = 0;
	KT_EXPECT(t, !pause_with_frame(seen.tid, read_arg0, &arg0) && arg0 == PAUSED_ID,
		  "the paused thread's arg0 is %llu", (unsigned long long)arg0);
	/* The others run to their end meanwhile; the paused one makes no call. */
	for (int i = 0; i < WORKERS; i++)
		if (i != PAUSED_ID - 1)
			thread_join(threads[i]);
	KT_EXPECT(t, workers[0].calls == CALLS && workers[2].calls == CALLS &&
		  READ_ONCE(held->calls) == 0, "calls: %ld, %ld (paused), %ld", workers[0].calls,
		  READ_ONCE(held->calls), workers[2].calls);
	/* Disabling the probe does not wait for the paused thread to leave its patch... */
	struct probe_site_info site;
	probe_site_info((uintptr_t)pause_target, &site);
	probe_disable(&c);
	/* ...which stays, since the paused thread's stack returns into it. */
	KT_EXPECT(t, site.patch && probe_range_in_use(site.patch, site.patch + 256),
		  "the paused thread's patch at %#llx counts as unused",
		  (unsigned long long)site.patch);
	KT_EXPECT(t, pause_continue(seen.tid) == 1, "continue found no paused thread");
	KT_EXPECT(t, pause_continue(seen.tid) == 0, "a second continue found it still paused");
	thread_join(threads[PAUSED_ID - 1]);
	KT_EXPECT(t, held->calls == CALLS && !held->wrong && !workers[0].wrong &&
		  !workers[2].wrong, "after the resume: %ld calls, %ld wrong results", held->calls,
		  held->wrong);
	pause_get_stats(&after);
	KT_EXPECT(t, after.paused == before.paused + 1, "%llu pauses counted, want 1",
		  (unsigned long long)(after.paused - before.paused));
}

static void always_pause(const struct probe_hit *hit, void *arg)
{
	(void)arg;
	pause_request(hit);
}

/* One call of pause_target with consumer c on it, interrupts masked or not. */
static struct pause_stats refused_call(struct ktest_ctx *t, struct probe_consumer *c, bool masked)
{
	struct pause_stats s = { 0 };
	struct probe *p = probe_named("fbt::pause_target:entry");
	if (!p || probe_enable(p, c)) {
		ktest_fail(t, __FILE__, __LINE__, "enabling failed");
		return s;
	}
	irqflags_t f = masked ? arch_irq_save() : 0;
	long r = pause_target(7);
	if (masked)
		arch_irq_restore(f);
	probe_disable(c);
	KT_EXPECT(t, r == 15, "pause_target(7) gave %ld", r);
	pause_get_stats(&s);
	return s;
}

KTEST_NEEDS(probe_pause_refused_where_it_cannot_sleep, 1, FEATURE_PROBES)
{
	struct probe_consumer jump = { .action = PROBE_HANDLER, .handler = always_pause,
				       .may_pause = true, .mechanism = PROBE_MECH_JUMP };
	struct probe_consumer trap = { .action = PROBE_HANDLER, .handler = always_pause,
				       .may_pause = true, .mechanism = PROBE_MECH_BREAKPOINT };
	struct pause_stats start;
	pause_get_stats(&start);

	struct pause_stats s = refused_call(t, &jump, true);
	KT_EXPECT(t, s.refused == start.refused + 1 && s.paused == start.paused &&
		  s.last_refused_why &&
		  !strcmp(s.last_refused_why, "interrupts masked at the probe") &&
		  s.last_refused_addr == (uintptr_t)pause_target,
		  "masked: %llu refused, why '%s'", (unsigned long long)(s.refused - start.refused),
		  s.last_refused_why ? s.last_refused_why : "");
	s = refused_call(t, &trap, false);
	KT_EXPECT(t, s.refused == start.refused + 2 && s.paused == start.paused &&
		  s.last_refused_why && !strcmp(s.last_refused_why,
						 "a breakpoint or software-fired site"),
		  "breakpoint: %llu refused, why '%s'",
		  (unsigned long long)(s.refused - start.refused),
		  s.last_refused_why ? s.last_refused_why : "");
	struct paused_thread_info none = { 0 };
	pause_foreach(find_paused, &none);
	KT_EXPECT(t, !none.tid, "thread %llu left paused", (unsigned long long)none.tid);
}

/* `pausework N`: N threads calling pause_target(1..N) CALLS times each, for scion break. */
static struct worker shell_workers[8];

static int cmd_pausework(int argc, char **argv)
{
	uint64_t n;
	if (argc == 2 && !strcmp(argv[1], "status")) {
		for (int i = 0; i < 8 && shell_workers[i].id; i++)
			printk("pausework: worker %ld tid %llu calls %ld wrong %ld %s\n",
			       shell_workers[i].id, (unsigned long long)shell_workers[i].tid,
			       READ_ONCE(shell_workers[i].calls), shell_workers[i].wrong,
			       READ_ONCE(shell_workers[i].done) ? "done" : "running");
		return 0;
	}
	if (argc != 2 || parse_u64(argv[1], &n, false) || n < 1 || n > 8) {
		printk("pausework: usage: pausework N (1..8) | status\n");
		return -EINVAL;
	}
	for (unsigned i = 0; i < 8; i++)
		if (shell_workers[i].id && !READ_ONCE(shell_workers[i].done)) {
			printk("pausework: workers still running\n");
			return -EBUSY;
		}
	memset(shell_workers, 0, sizeof(shell_workers));
	for (unsigned i = 0; i < n; i++) {
		shell_workers[i].id = (long)i + 1;
		if (thread_spawn("pausework", worker_main, &shell_workers[i], -1)) {
			printk("pausework: no memory for a thread\n");
			return -ENOMEM;
		}
	}
	printk("pausework: %llu workers started\n", (unsigned long long)n);
	return 0;
}
SHELL_COMMAND(pausework, "N | status", "threads that call pause_target (tests)", cmd_pausework);
