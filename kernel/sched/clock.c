// SPDX-License-Identifier: BSD-2-Clause
/*
 * Kernel time. CPU 0's timer advances the tick count; every CPU's timer
 * drives its scheduler tick. Nanoseconds come from the cycle counter,
 * counted from the first instruction of the kernel.
 */
#include <scion/clock.h>
#include <scion/sched.h>
#include <scion/boot.h>
#include <scion/cpu.h>
#include <scion/shell.h>
#include <scion/printk.h>
#include <scion/errno.h>
#include <scion/graft.h>
#include <scion/trace.h>
#include <graft/timer.h>
#include <arch/cpu.h>
#include <arch/timer.h>

static uint64_t ticks;	/* written by CPU 0 only */

uint64_t clock_ticks(void)
{
	return __atomic_load_n(&ticks, __ATOMIC_RELAXED);
}

/* c cycles in nanoseconds at hz (nonzero) cycles a second. Inlined into clock_ns. */
static inline uint64_t cycles_to_ns(uint64_t c, uint64_t hz)
{
	return c / hz * 1000000000ull + c % hz * 1000000000ull / hz;
}

uint64_t clock_cycles_to_ns(uint64_t c)
{
	uint64_t hz = arch_cycles_per_second();
	return hz ? cycles_to_ns(c, hz) : 0;
}

/*
 * Trace records, probes and every context switch call this. The rate is
 * read before the cycle counter so that the count need not be kept in
 * saved registers across the call: read after it, the function took 10
 * more instructions (a D firing that writes a record, 378 -> 391; a
 * context switch, 314 -> 324).
 */
uint64_t clock_ns(void)
{
	uint64_t hz = arch_cycles_per_second();
	if (!hz)
		return 0;
	return cycles_to_ns(arch_cycles() - boot_info.entry_cycles, hz);
}

void thread_sleep_ms(uint64_t ms)
{
	thread_sleep_ticks(ms_to_ticks(ms));
}

/*
 * A CPU's fast tick (clock_set_fast_tick): its timer interrupts factor
 * times a tick; every factor-th is also the tick. Touched only by its
 * own CPU, with interrupts masked.
 */
struct fast_tick {
	unsigned factor;		/* 0 or 1: the timer interrupts once a tick */
	unsigned count;			/* interrupts since the last tick */
	void (*fn)(void);		/* called on every interrupt (not in timer-only mode) */
};
static struct fast_tick fast_ticks[MAX_CPUS];

/* Whether this timer interrupt is also a tick. */
static bool interrupt_is_tick(struct fast_tick *ft)
{
	if (ft->factor <= 1)
		return true;
	if (++ft->count < ft->factor)
		return false;
	ft->count = 0;
	return true;
}

void clock_set_fast_tick(unsigned factor, void (*fn)(void))
{
	irqflags_t f = arch_irq_save();
	struct fast_tick *ft = &fast_ticks[this_cpu_index()];
	ft->fn = factor > 1 ? fn : NULL;
	ft->count = 0;
	ft->factor = factor > 1 ? factor : 1;
	arch_timer_start(HZ * ft->factor);
	arch_irq_restore(f);
}

static void count_tick(void)
{
	if (this_cpu_index() == 0)
		__atomic_store_n(&ticks, ticks + 1, __ATOMIC_RELAXED);
}

void clock_count_tick(void)
{
	if (interrupt_is_tick(&fast_ticks[this_cpu_index()]))
		count_tick();
}

static void timer_tick_nothing(unsigned cpu, uint64_t tick)
{
	(void)cpu;
	(void)tick;
}

static graft_fn_timer_tick *timer_tick_event = timer_tick_nothing;
GRAFT_POINT_EVENT(timer_tick, timer_tick_event, timer_tick_nothing, 1000,
		  "a timer tick on a CPU (interrupt context, no locks held); default: nothing");

void clock_timer_interrupt(void)
{
	struct fast_tick *ft = &fast_ticks[this_cpu_index()];
	if (ft->fn)
		ft->fn();
	if (!interrupt_is_tick(ft))
		return;
	count_tick();
	sched_tick();
	profile_tick();
	timer_tick_event(this_cpu_index(), clock_ticks());
}

void clock_start_cpu(void)
{
	arch_timer_start(HZ);
}

static int cmd_uptime(int argc, char **argv)
{
	(void)argv;
	if (argc != 1) {
		printk("uptime: takes no arguments\n");
		return -EINVAL;
	}
	uint64_t ns = clock_ns();
	printk("up %llu.%03llu s, %llu ticks at %u Hz\n", (unsigned long long)(ns / 1000000000ull),
	       (unsigned long long)(ns / 1000000 % 1000), (unsigned long long)clock_ticks(), HZ);
	return 0;
}
SHELL_COMMAND(uptime, "", "time since boot", cmd_uptime);
