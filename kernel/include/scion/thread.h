/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Kernel threads.
 *
 * A thread runs a function on its own stack, in the kernel. It is
 * created runnable, may sleep and be woken, and ends by returning from
 * its function or calling thread_exit. A joinable thread's memory is
 * released by thread_join; a detached thread's by the scheduler once it
 * has switched away from it for the last time.
 *
 * Lock order: waitq locks -> sched_lock -> threads_lock.
 */
#ifndef SCION_THREAD_H
#define SCION_THREAD_H

#include <scion/compiler.h>
#include <scion/list.h>
#include <scion/spinlock.h>
#include <scion/runq.h>
#include <arch/context.h>

struct cpu;

enum thread_state {
	THREAD_RUNNABLE,	/* on the run queue */
	THREAD_RUNNING,		/* current on some CPU */
	THREAD_SLEEPING,	/* blocked; thread_wake makes it runnable */
	THREAD_DEAD,		/* exited; waiting to be joined or reaped */
};

#define THREAD_NAME_MAX 24
#define THREAD_STACK_SIZE (16 * 1024)

typedef void (*thread_fn)(void *arg);

struct thread {
	struct arch_thread arch;	/* must be first: saved context */
	uint64_t tid;			/* set once */
	char name[THREAD_NAME_MAX];	/* set once */
	enum thread_state state;	/* sched_lock */
	bool on_cpu;			/* sched_lock: still running on its stack */
	struct sched_entity se;		/* sched_lock: what policies know of it (scion/runq.h):
					   affinity, run queue link, slice, ticks run, switches */
	struct cpu *cpu;		/* sched_lock: CPU it runs or last ran on */
	struct list_node timer_node;	/* timer_lock (clock.c): sleep deadline */
	uint64_t wake_tick;		/* timer_lock */
	struct list_node all_node;	/* threads_lock: list of every thread */
	/* Cycles, not ns: a switch reads the counter and converts nothing (thread_on_cpu_ns). */
	uint64_t run_cycles;		/* sched_lock: on-CPU time before oncpu_since */
	uint64_t oncpu_since;		/* sched_lock: arch_cycles() at its last switch in (an
					   idle thread's first: the kernel's entry) */
	thread_fn entry;		/* set once */
	void *arg;			/* set once */
	uintptr_t preempted_pc;		/* sched_lock: where an interrupt last switched it out
					   (0: it last switched out by itself); read unlocked */
	bool paused_at_probe;		/* own thread writes: asleep in a probe's hit
					   (kernel/debug/pause.c), its stack holding a return
					   into a patch or a frame that resumes in one */
	uintptr_t stack_base;		/* set once; 0 for a boot stack */
	uintptr_t stack_top;		/* set once */
	int exit_code;			/* sched_lock, valid when DEAD */
	bool detached;			/* sched_lock */
	bool is_idle;			/* set once */
	bool timed_out;			/* sched_lock: last sleep ended by its deadline */
	struct thread *joiner;		/* sched_lock: thread waiting in thread_join */
	struct output_sink *output;	/* own thread: where its printk goes (NULL: console) */
	struct process *proc;		/* own thread: its user process, NULL for a kernel thread */
	bool in_uaccess;		/* own thread: copying user memory (copyin/copyout), so
					   a page fault at a user address may be resolved */
	int trace_errno;		/* own thread: D's errno, the error (0: none) of the
					   last system call the syscall provider traced */
	/* What it asked of the I/O path, for the monitor's per-thread profile. */
	uint64_t bcache_reads;		/* own thread writes (atomic store): block cache reads */
	uint64_t disk_wait_ns;		/* own thread writes (atomic store): time in blkdev_wait */
};

/*
 * thread_create - create a runnable kernel thread.
 * Arguments: name (truncated to THREAD_NAME_MAX-1), fn and its arg;
 *   cpu = index of the only CPU it may run on, or -1 for any.
 * Return value: the thread, or NULL when memory ran out. The thread is
 *   joinable: the caller must thread_join or thread_detach it.
 * Caller's context: thread or boot; may not be called with spinlocks held.
 */
struct thread *thread_create(const char *name, thread_fn fn, void *arg, int cpu);

/* Like thread_create, then thread_detach. Return value: 0 or -ENOMEM. */
int thread_spawn(const char *name, thread_fn fn, void *arg, int cpu);

/* Let the scheduler release t's memory when it exits. */
void thread_detach(struct thread *t);

/*
 * thread_set_affinity - Overview: let t run only on CPU cpu (-1: any),
 *   from its next switch (a thread pinning itself yields to get there).
 * Return value: the affinity t had, to give back later.
 * Caller's context: thread; no spinlocks held (takes sched_lock).
 */
int thread_set_affinity(struct thread *t, int cpu);

/*
 * thread_join - wait until t has exited and release it.
 * Return value: t's exit code. Caller's context: thread, may sleep.
 */
int thread_join(struct thread *t);

/*
 * thread_join_timeout - as thread_join, but give up after ticks timer ticks.
 * Return value: 0 with *code set, or -ETIMEDOUT (t is left running and
 *   still joinable).
 */
int thread_join_timeout(struct thread *t, uint64_t ticks, int *code);

/* End the calling thread with code. */
__noreturn void thread_exit(int code);

/* The thread running on this CPU. */
struct thread *thread_current(void);

/* The calling thread's time on a CPU since it was created, in ns. Any thread context. */
uint64_t thread_cpu_ns_self(void);

/*
 * t's time on a CPU up to the moment the cycle counter read now, in ns:
 * its runs before its last switch in and, while it runs, the time since.
 * Caller's context: sched_lock held, or t the caller with interrupts masked.
 */
uint64_t thread_on_cpu_ns(const struct thread *t, uint64_t now);

/* Visit every thread under threads_lock; fn must not sleep or take sched_lock. */
void thread_foreach(void (*fn)(struct thread *t, void *arg), void *arg);

/*
 * sched_foreach_thread - visit every thread with sched_lock and then
 *   threads_lock held, so that its state and on-CPU time are consistent
 *   (the monitor's per-thread sources read them). Scheduling waits on
 *   every CPU meanwhile: fn must be short, not sleep, take no lock.
 * Caller's context: thread; no spinlock held.
 */
void sched_foreach_thread(void (*fn)(struct thread *t, void *arg), void *arg);

const char *thread_state_name(enum thread_state s);

/* Lowest address of t's stack, and its top (exclusive). */
static inline bool thread_stack_contains(const struct thread *t, uintptr_t a, size_t len)
{
	return a >= t->stack_base && a + len <= t->stack_top && a + len >= a;
}

#endif
