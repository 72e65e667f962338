// SPDX-License-Identifier: BSD-2-Clause
/*
 * In-kernel tests of threads and the scheduler: fair sharing of CPUs,
 * sleeping, wait queues without lost wakeups, mutexes, join with a
 * timeout, and CPU affinity.
 */
#include <scion/ktest.h>
#include <scion/thread.h>
#include <scion/sched.h>
#include <scion/clock.h>
#include <scion/wait.h>
#include <scion/mutex.h>
#include <scion/cpu.h>
#include <scion/errno.h>
#include <scion/atomic.h>
#include <scion/mm.h>
#include <scion/printk.h>

#define FAIR_SECONDS 2
#define MAX_BUSY (2 * MAX_CPUS + 1)

struct busy_share {
	volatile bool *stop;
	uint64_t ticks;
};

static void busy_thread(void *arg)
{
	struct busy_share *s = arg;
	while (!READ_ONCE(*s->stop))
		cpu_relax();
	s->ticks = thread_current()->se.ticks_run;
}

KTEST(sched_fair_share, 1)
{
	unsigned ncpu = cpu_count(), n = 2 * ncpu + 1;
	struct busy_share shares[MAX_BUSY];
	struct thread *threads[MAX_BUSY];
	volatile bool stop = false;

	for (unsigned i = 0; i < n; i++) {
		shares[i] = (struct busy_share){ .stop = &stop };
		threads[i] = thread_create("busy", busy_thread, &shares[i], -1);
		KT_ASSERT(t, threads[i], "cannot create busy thread %u", i);
	}
	thread_sleep_ms(FAIR_SECONDS * 1000);
	stop = true;
	uint64_t total = 0, min = UINT64_MAX, max = 0;
	for (unsigned i = 0; i < n; i++) {
		thread_join(threads[i]);
		total += shares[i].ticks;
		min = MIN(min, shares[i].ticks);
		max = MAX(max, shares[i].ticks);
	}
	uint64_t mean = total / n;
	printk("sched_fair_share: %u threads on %u CPUs, ticks min %llu mean %llu max %llu\n", n,
	       ncpu, (unsigned long long)min, (unsigned long long)mean, (unsigned long long)max);
	KT_ASSERT(t, mean > 0, "busy threads were charged no ticks");
	/* Each thread within half of the mean either way. */
	KT_EXPECT(t, min * 2 >= mean && max <= mean * 3 / 2,
		  "%u threads on %u CPUs: ticks min %llu, mean %llu, max %llu", n, ncpu,
		  (unsigned long long)min, (unsigned long long)mean, (unsigned long long)max);
	/* The busy threads together kept most of the CPUs busy. */
	uint64_t available = (uint64_t)FAIR_SECONDS * HZ * ncpu;
	KT_EXPECT(t, total * 10 >= available * 6, "busy threads got %llu of %llu CPU ticks",
		  (unsigned long long)total, (unsigned long long)available);
}

KTEST(sched_sleep_ms, 1)
{
	uint64_t t0 = clock_ticks(), ns0 = clock_ns();
	thread_sleep_ms(100);
	uint64_t t1 = clock_ticks(), ns1 = clock_ns();
	KT_EXPECT(t, t1 - t0 >= ms_to_ticks(100), "slept %llu ticks, asked for %llu",
		  (unsigned long long)(t1 - t0), (unsigned long long)ms_to_ticks(100));
	KT_EXPECT(t, ns1 > ns0, "clock_ns did not advance across a sleep");
}

#define RING 16
#define ITEMS 20000

struct pipe {
	struct waitq not_empty, not_full;
	uint64_t buf[RING];
	unsigned head, tail;	/* head written by the consumer, tail by the producer */
};

static struct pipe pipe_under_test;

static bool pipe_has_room(struct pipe *p)
{
	return READ_ONCE(p->tail) - READ_ONCE(p->head) < RING;
}

static bool pipe_has_data(struct pipe *p)
{
	return READ_ONCE(p->tail) != READ_ONCE(p->head);
}

static void producer(void *arg)
{
	struct pipe *p = arg;
	for (uint64_t i = 1; i <= ITEMS; i++) {
		wait_event(&p->not_full, pipe_has_room(p));
		p->buf[p->tail % RING] = i;
		__atomic_store_n(&p->tail, p->tail + 1, __ATOMIC_RELEASE);
		waitq_wake_all(&p->not_empty);
	}
}

static void consumer(void *arg)
{
	struct pipe *p = arg;
	uint64_t *bad = (uint64_t *)&p->buf[0];	/* reused as a result slot at the end */
	uint64_t expect = 1, errors = 0;
	while (expect <= ITEMS) {
		wait_event(&p->not_empty, pipe_has_data(p));
		uint64_t v = p->buf[p->head % RING];
		if (v != expect)
			errors++;
		expect++;
		__atomic_store_n(&p->head, p->head + 1, __ATOMIC_RELEASE);
		waitq_wake_all(&p->not_full);
	}
	*bad = errors;
}

KTEST(sched_waitq_producer_consumer, 1)
{
	struct pipe *p = &pipe_under_test;
	waitq_init(&p->not_empty, "pipe-not-empty");
	waitq_init(&p->not_full, "pipe-not-full");
	p->head = p->tail = 0;
	struct thread *prod = thread_create("producer", producer, p, -1);
	struct thread *cons = thread_create("consumer", consumer, p, -1);
	KT_ASSERT(t, prod && cons, "cannot create threads");
	int err1 = thread_join_timeout(prod, 30 * HZ, NULL);
	int err2 = thread_join_timeout(cons, 30 * HZ, NULL);
	KT_ASSERT(t, !err1 && !err2, "producer/consumer stuck (lost wakeup?): %d %d", err1, err2);
	KT_EXPECT(t, p->buf[0] == 0, "consumer saw %llu items out of order",
		  (unsigned long long)p->buf[0]);
	KT_EXPECT(t, p->head == ITEMS && p->tail == ITEMS, "head %u tail %u", p->head, p->tail);
}

#define MUTEX_THREADS 4
#define MUTEX_ROUNDS 1000

static struct mutex counter_mutex = MUTEX_INIT(counter_mutex, "test-counter");
static uint64_t mutex_counter;

static void mutex_worker(void *arg)
{
	(void)arg;
	for (int i = 0; i < MUTEX_ROUNDS; i++) {
		mutex_lock(&counter_mutex);
		uint64_t v = mutex_counter;
		thread_yield();	/* invite another thread into the critical section */
		mutex_counter = v + 1;
		mutex_unlock(&counter_mutex);
	}
}

KTEST(sched_mutex_excludes, 1)
{
	struct thread *th[MUTEX_THREADS];
	mutex_counter = 0;
	for (int i = 0; i < MUTEX_THREADS; i++) {
		th[i] = thread_create("mutex-worker", mutex_worker, NULL, -1);
		KT_ASSERT(t, th[i], "cannot create thread");
	}
	for (int i = 0; i < MUTEX_THREADS; i++)
		thread_join(th[i]);
	KT_EXPECT(t, mutex_counter == MUTEX_THREADS * MUTEX_ROUNDS, "counter %llu, expected %d",
		  (unsigned long long)mutex_counter, MUTEX_THREADS * MUTEX_ROUNDS);
}

static struct waitq release_wq = WAITQ_INIT(release_wq, "test-release");
static volatile bool released;

static void wait_for_release(void *arg)
{
	(void)arg;
	wait_event(&release_wq, released);
	thread_exit(42);
}

KTEST(sched_join_timeout, 1)
{
	released = false;
	struct thread *w = thread_create("waiter", wait_for_release, NULL, -1);
	KT_ASSERT(t, w, "cannot create thread");
	int code = 0;
	uint64_t t0 = clock_ticks();
	KT_EXPECT(t, thread_join_timeout(w, 5, &code) == -ETIMEDOUT, "join did not time out");
	KT_EXPECT(t, clock_ticks() - t0 >= 5, "join gave up after %llu ticks, before its timeout",
		  (unsigned long long)(clock_ticks() - t0));
	/* The waiter may not have run yet on a loaded host (MTTCG): give it a second to block. */
	for (uint64_t until = clock_ticks() + HZ; READ_ONCE(w->state) != THREAD_SLEEPING &&
	     clock_ticks() < until;)
		thread_sleep_ticks(1);
	KT_EXPECT(t, w->state == THREAD_SLEEPING, "waiter is %s, expected sleeping",
		  thread_state_name(w->state));
	bool ok = wait_event_timeout(&release_wq, false, 3);
	KT_EXPECT(t, !ok, "wait_event_timeout on a false condition returned true");
	irqflags_t f = spin_lock_irqsave(&release_wq.lock);
	released = true;
	spin_unlock_irqrestore(&release_wq.lock, f);
	waitq_wake_all(&release_wq);
	KT_EXPECT(t, thread_join_timeout(w, 10 * HZ, &code) == 0 && code == 42,
		  "join after release: code %d", code);
}

struct affinity_probe {
	int cpu;
	int wrong;
};

static void affinity_thread(void *arg)
{
	struct affinity_probe *p = arg;
	for (int i = 0; i < 50; i++) {
		irqflags_t f = arch_irq_save();
		if ((int)this_cpu_index() != p->cpu)
			p->wrong++;
		arch_irq_restore(f);
		thread_yield();
	}
}

KTEST(sched_affinity, 1)
{
	struct affinity_probe probes[MAX_CPUS];
	struct thread *th[MAX_CPUS] = { 0 };
	unsigned n = cpu_count();

	for (unsigned i = 0; i < n; i++) {
		probes[i] = (struct affinity_probe){ .cpu = (int)i };
		th[i] = thread_create("pinned", affinity_thread, &probes[i], (int)i);
		KT_ASSERT(t, th[i], "cannot create thread");
	}
	for (unsigned i = 0; i < n; i++) {
		thread_join(th[i]);
		KT_EXPECT(t, probes[i].wrong == 0, "thread pinned to cpu %u ran elsewhere %d times", i,
			  probes[i].wrong);
	}
	KT_EXPECT(t, thread_create("bad", affinity_thread, NULL, MAX_CPUS) == NULL,
		  "a thread pinned to a CPU that cannot exist was created");
}

static void count_run(void *arg)
{
	atomic_add((unsigned *)arg, 1);
}

KTEST(sched_thread_lifecycle_no_leak, 1)
{
	static unsigned ran;
	struct kmalloc_stats before, after;

	ran = 0;
	kmalloc_get_stats(&before);
	for (int i = 0; i < 300; i++) {
		struct thread *th = thread_create("short", count_run, &ran, -1);
		KT_ASSERT(t, th, "creation %d failed", i);
		if (i % 2)
			thread_join(th);
		else
			thread_detach(th);
	}
	for (int i = 0; i < 100 && atomic_load(&ran) < 300; i++)
		thread_sleep_ms(10);
	thread_sleep_ms(20);	/* let the last detached threads be reaped */
	kmalloc_get_stats(&after);
	KT_EXPECT(t, ran == 300, "ran %u of 300", ran);
	KT_EXPECT(t, after.bytes_in_use == before.bytes_in_use,
		  "heap in use grew from %llu to %llu bytes", (unsigned long long)before.bytes_in_use,
		  (unsigned long long)after.bytes_in_use);
}
