/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Per-CPU state. Each CPU finds its own struct cpu with this_cpu()
 * (arch/percpu.h); fields marked "own CPU" are read and written only by
 * that CPU with interrupts masked, the others say which lock guards them.
 */
#ifndef SCION_CPU_H
#define SCION_CPU_H

#include <scion/compiler.h>
#include <scion/spinlock.h>
#include <arch/percpu.h>
#include <arch/smp.h>
#include <arch/cpu.h>

#define MAX_CPUS ARCH_MAX_CPUS
#define PROBE_CPU_SLOTS 192	/* 64 accumulators of 3 slots */

struct thread;
struct xcall_slot;

struct cpu {
	struct cpu *self;		/* must be first: arch/percpu.h */
	uintptr_t sandbox_sp;		/* own CPU; must be second (%gs:8): the kernel stack
					   pointer a sandboxed graft's exit returns to (arch/sfi.h) */
	uintptr_t entry_scratch[2];	/* own CPU, interrupts masked; must be third (%gs:16):
					   the trap entry's scratch while it has no stack of
					   its own yet (arch) */
	uintptr_t kernel_sp;		/* own CPU, set at each switch; must be fourth (%gs:32):
					   the top of the running thread's kernel stack, where
					   an entry from user space lands (arch) */
	uintptr_t user_sp;		/* own CPU, interrupts masked; must be fifth (%gs:40):
					   the system-call entry's scratch for the user stack
					   pointer (arch) */
	unsigned index;			/* 0 .. cpu_count() - 1, set once */
	bool online;			/* set once by the CPU itself */
	struct thread *current;		/* own CPU, changed under sched_lock */
	struct thread *idle;		/* set once */
	bool need_resched;		/* sched_lock; read by own CPU */
	unsigned irq_depth;		/* own CPU: nesting of interrupt handlers */
	unsigned lock_depth;		/* own CPU: spinlocks held */
	uint64_t ticks;			/* own CPU: timer ticks */
	uint64_t idle_ticks;		/* own CPU: ticks that found the idle thread */
	uint64_t interrupts;		/* own CPU: interrupts taken */
	uint64_t irq_cycles;		/* own CPU writes, anyone reads: cycles spent in
					   interrupt handlers (cpu_irq_time_enter/exit) */
	uint64_t irq_idle_cycles;	/* own CPU writes: the part of them that interrupted
					   the idle thread */
	uint64_t irq_since;		/* own CPU: the cycle count at the outermost entry */
	uint64_t xcalls;		/* own CPU: cross-call functions run */

	unsigned txn_depth;		/* own CPU: graft transactions open (kernel/graft/txn.c) */
	struct txn_cpu *txn;		/* set once: this CPU's transaction state (txn.c) */
	bool txn_timer_only;		/* own CPU: a graft runs with only the timer unmasked */

	/*
	 * Probe consumers on this CPU (cpu_probe_running and the functions
	 * after it), in one word that only the own CPU writes, each change
	 * one store or one instruction, and anyone reads: bit 0 is set while
	 * consumers run; the bits above count the hits whose consumers ran
	 * (the monitor's probe.hits). A flag, not a depth: consumers never
	 * nest (a hit meanwhile only counts as missed). One word, so a patch
	 * tests and sets the flag in one instruction (x86's bts) and ends a
	 * hit in one: adding 1 clears the flag and carries into the count.
	 */
	uint64_t probe_run;
	/*
	 * Own CPU, interrupts masked: a pause a consumer of the current hit
	 * asked for (scion/pause.h): the thread (0: none) and the probed
	 * instruction; the hit's end pauses the thread there or refuses.
	 * pause_step: a single step's probe asked (it may pause at a
	 * breakpoint site).
	 */
	uint64_t pause_tid;
	uint64_t pause_addr;
	bool pause_step;
	uint64_t probe_slots[PROBE_CPU_SLOTS];	/* own CPU: accumulators (kernel/probe) */

	struct spinlock xcall_lock;
	struct xcall_slot *xcall_head;	/* xcall_lock: queued cross-calls */
	struct xcall_slot *xcall_tail;	/* xcall_lock */

	struct arch_cpu arch;
};

extern struct cpu cpu_table[MAX_CPUS];

/* CPUs online (they are cpu_table[0 .. cpu_count() - 1]). */
unsigned cpu_count(void);

static inline struct cpu *cpu_by_index(unsigned i)
{
	return &cpu_table[i];
}

/* Index of the executing CPU; only stable while interrupts are masked. */
static inline unsigned this_cpu_index(void)
{
	return this_cpu()->index;
}

/*
 * cpu_irq_time_enter, cpu_irq_time_exit - the arch's interrupt entry
 *   calls these around the outermost handler of c, the executing CPU, so
 *   that interrupt time is known apart from the threads' (the monitor's
 *   cpu.irq, cpu.idle and cpu.busy). One cycle-counter read each.
 * Caller's context: interrupt entry and exit, interrupts masked.
 */
static inline void cpu_irq_time_enter(struct cpu *c)
{
	c->irq_since = arch_cycles();
}

static inline void cpu_irq_time_exit(struct cpu *c)
{
	uint64_t spent = arch_cycles() - c->irq_since;
	__atomic_store_n(&c->irq_cycles, c->irq_cycles + spent, __ATOMIC_RELAXED);
	if (c->current == c->idle)
		__atomic_store_n(&c->irq_idle_cycles, c->irq_idle_cycles + spent, __ATOMIC_RELAXED);
}

/*
 * cpu_probe_running - whether probe consumers run on c, the executing CPU
 *   (a hit taken meanwhile skips its consumers).
 * cpu_probe_hit_begin, cpu_probe_hit_end - around the consumers of a
 *   probe hit, when none were running: counted in probe.hits.
 * cpu_probe_run_begin, cpu_probe_run_end - around consumers that run for
 *   no probe hit (a trace session's BEGIN, END and ERROR clauses), which
 *   may run inside a hit's: not counted; run_begin returns what run_end
 *   puts back.
 * Caller's context: interrupts masked.
 */
#define CPU_PROBE_RUNNING 1ull	/* probe_run's flag; the count is probe_run >> 1 */

static inline bool cpu_probe_running(const struct cpu *c)
{
	return c->probe_run & CPU_PROBE_RUNNING;
}

static inline void cpu_probe_hit_begin(struct cpu *c)
{
	__atomic_store_n(&c->probe_run, c->probe_run | CPU_PROBE_RUNNING, __ATOMIC_RELAXED);
}

static inline void cpu_probe_hit_end(struct cpu *c)
{
	__atomic_store_n(&c->probe_run, c->probe_run + 1, __ATOMIC_RELAXED);
}

static inline uint64_t cpu_probe_run_begin(struct cpu *c)
{
	uint64_t was = c->probe_run & CPU_PROBE_RUNNING;
	__atomic_store_n(&c->probe_run, c->probe_run | CPU_PROBE_RUNNING, __ATOMIC_RELAXED);
	return was;
}

static inline void cpu_probe_run_end(struct cpu *c, uint64_t was)
{
	__atomic_store_n(&c->probe_run, (c->probe_run & ~CPU_PROBE_RUNNING) | was,
			 __ATOMIC_RELAXED);
}

/* The probe hits whose consumers ran on c (any CPU may ask). */
static inline uint64_t cpu_probe_hits(const struct cpu *c)
{
	return __atomic_load_n(&c->probe_run, __ATOMIC_RELAXED) >> 1;
}

/* True in interrupt context (an interrupt handler runs on this CPU). */
static inline bool in_interrupt(void)
{
	return this_cpu()->irq_depth != 0;
}

/*
 * cpu_online_main - what a secondary CPU runs once the arch code has set
 * up its descriptor tables and stack; becomes the CPU's idle thread.
 */
__noreturn void cpu_online_main(struct cpu *c);

/* Register the boot CPU (index 0) before anything else uses this_cpu(). */
void cpu_init_boot(void);

#endif
