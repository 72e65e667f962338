// SPDX-License-Identifier: BSD-2-Clause
/*
 * Shell: `sched order [N]` and `sched run ...` (workload.c), small
 * workloads for comparing scheduling policies (grafts at
 * sched.pick_next). `sched order`: N threads pinned to CPU 0 wait
 * at a gate; the shell, pinned to CPU 0 too, opens it, queueing them all
 * at once in creation order, and then waits for them: the order in
 * which they get to run is the policy's choice alone (round robin:
 * 0 1 2 ..., last-in-first-out: ... 2 1 0).
 */
#include <scion/sched.h>
#include <scion/thread.h>
#include <scion/wait.h>
#include <scion/shell.h>
#include <scion/printk.h>
#include <scion/string.h>
#include <scion/errno.h>
#include "sched_internal.h"

#define ORDER_MAX_THREADS 16

struct order_run {
	struct waitq gate;
	struct waitq arrived;		/* the shell waits here for every worker */
	bool open;			/* gate.lock */
	unsigned waiting;		/* gate.lock: workers asleep at the gate */
	unsigned expected;		/* gate.lock: workers created */
	unsigned ran;			/* atomic: workers past it */
	unsigned order[ORDER_MAX_THREADS];
};

struct order_worker {
	struct order_run *run;
	unsigned index;
};

static void order_worker(void *arg)
{
	struct order_worker *w = arg;
	struct order_run *run = w->run;

	irqflags_t f = spin_lock_irqsave(&run->gate.lock);
	if (++run->waiting == run->expected)
		waitq_wake_all(&run->arrived);
	while (!run->open)
		waitq_sleep(&run->gate, 0);
	spin_unlock_irqrestore(&run->gate.lock, f);
	unsigned slot = __atomic_fetch_add(&run->ran, 1, __ATOMIC_RELAXED);
	run->order[slot] = w->index;
}

static void pin_self(int cpu)
{
	thread_set_affinity(thread_current(), cpu);
	thread_yield();
}

static int sched_order(unsigned n)
{
	static struct order_run run;
	struct order_worker workers[ORDER_MAX_THREADS];
	struct thread *threads[ORDER_MAX_THREADS];
	int saved_affinity = thread_current()->se.affinity;
	unsigned created = 0;

	waitq_init(&run.gate, "sched-order-gate");
	waitq_init(&run.arrived, "sched-order-arrived");
	run.open = false;
	run.waiting = 0;
	run.expected = UINT32_MAX;
	run.ran = 0;
	pin_self(0);
	for (; created < n; created++) {
		workers[created] = (struct order_worker){ &run, created };
		threads[created] = thread_create("order", order_worker, &workers[created], 0);
		if (!threads[created])
			break;
	}
	/*
	 * Wait (asleep: yielding would let a policy that prefers the
	 * newest thread starve the workers) until every worker sleeps at
	 * the gate, then open it: they become runnable together.
	 */
	irqflags_t f = spin_lock_irqsave(&run.gate.lock);
	run.expected = created;
	spin_unlock_irqrestore(&run.gate.lock, f);
	wait_event(&run.arrived, READ_ONCE(run.waiting) == created);
	/*
	 * Wake them in creation order (their order at the gate is already
	 * the policy's doing), holding the gate so that none runs before
	 * all are queued. A timer tick that landed while a worker walked
	 * to the gate is forgotten: a policy that weighs ticks run (fair)
	 * must see them all start even, or the order is the timer's.
	 */
	f = spin_lock_irqsave(&run.gate.lock);
	spin_lock_noirq(&sched_lock);
	for (unsigned i = 0; i < created; i++)
		threads[i]->se.ticks_run = 0;
	spin_unlock_noirq(&sched_lock);
	run.open = true;
	for (unsigned i = 0; i < created; i++)
		thread_wake(threads[i]);
	spin_unlock_irqrestore(&run.gate.lock, f);
	for (unsigned i = 0; i < created; i++)
		thread_join(threads[i]);
	pin_self(saved_affinity);
	if (created < n) {
		printk("sched: order: out of memory after %u threads\n", created);
		return -ENOMEM;
	}
	printk("sched: first-run order of %u threads:", n);
	for (unsigned i = 0; i < n; i++)
		printk(" %u", run.order[i]);
	printk("\n");
	return 0;
}

static int cmd_sched(int argc, char **argv)
{
	uint64_t n = 4;
	if (argc >= 2 && !strcmp(argv[1], "run"))
		return sched_workload_run(argc, argv);
	if (argc < 2 || argc > 3 || strcmp(argv[1], "order") ||
	    (argc == 3 && (parse_u64(argv[2], &n, false) || n < 1 || n > ORDER_MAX_THREADS))) {
		printk("sched: usage: sched order [N] (N threads, 1 to %u; default 4) | sched run "
		       "[n=N] [rounds=R] [compute=C] [sleep=S]\n", ORDER_MAX_THREADS);
		return -EINVAL;
	}
	return sched_order((unsigned)n);
}
SHELL_COMMAND(sched, "order [N] | run [n=N] [rounds=R] [compute=C] [sleep=S]",
	      "workloads for comparing scheduling policies: the order N waiting threads run in; "
	      "threads that compute and sleep", cmd_sched);
