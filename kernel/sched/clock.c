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

#define NS_PER_TICK (1000000000ull / HZ)

static uint64_t ticks;	/* written by CPU 0 only */

uint64_t clock_ticks(void)
{
	return __atomic_load_n(&ticks, __ATOMIC_RELAXED);
}

/*
 * Cycles to nanoseconds by multiplication: ns = c * whole + (c * frac) >> 64,
 * where whole + frac / 2^64 is 1e9 / hz. At most one nanosecond below the
 * exact quotient, monotonic in c, and without the two 64-bit divisions
 * that cost every trace record and context switch tens of cycles on a
 * real CPU. The factors are worked out again whenever the rate differs
 * from the one they were made for (it is measured once, at boot).
 */
struct ns_scale {
	uint64_t hz;		/* the rate whole and frac are for; 0: none yet */
	uint64_t whole;
	uint64_t frac;
};

static struct ns_scale scale;	/* written by whichever CPU sees a new rate first; all
				   CPUs see the same rate, so racing writers store the same */

static __attribute__((noinline)) const struct ns_scale *rescale(uint64_t hz)
{
	uint64_t whole = 1000000000ull / hz, rest = 1000000000ull % hz, frac = 0;

	/* frac = floor(rest * 2^64 / hz) by long division (rest < hz < 2^63). */
	for (int bit = 0; bit < 64; bit++) {
		rest <<= 1;
		frac <<= 1;
		if (rest >= hz) {
			rest -= hz;
			frac |= 1;
		}
	}
	WRITE_ONCE(scale.whole, whole);
	WRITE_ONCE(scale.frac, frac);
	__atomic_store_n(&scale.hz, hz, __ATOMIC_RELEASE);
	return &scale;
}

static inline uint64_t cycles_to_ns(uint64_t c, uint64_t hz)
{
	const struct ns_scale *k = __atomic_load_n(&scale.hz, __ATOMIC_ACQUIRE) == hz ? &scale
										   : rescale(hz);
	return c * k->whole + (uint64_t)(((unsigned __int128)c * k->frac) >> 64);
}

uint64_t clock_cycles_to_ns(uint64_t c)
{
	uint64_t hz = arch_cycles_per_second();
	return hz ? cycles_to_ns(c, hz) : 0;
}

uint64_t clock_ns_at(uint64_t cycles)
{
	return cycles > boot_info.entry_cycles ? clock_cycles_to_ns(cycles - boot_info.entry_cycles)
					       : 0;
}

/* clock_ns when the factors are not for the rate hz (the first call after calibration). */
static __attribute__((noinline)) uint64_t clock_ns_rescaled(uint64_t hz)
{
	if (!hz)
		return 0;
	return cycles_to_ns(arch_cycles() - boot_info.entry_cycles, hz);
}

/*
 * Trace records, probes and every context switch call this. The rate is
 * read before the cycle counter so that the count need not be kept in
 * saved registers across the call: read after it, the function took 10
 * more instructions. Only the factors' rate is compared with it (before
 * calibration both are 0, and factors of 0 give 0); anything else goes
 * to clock_ns_rescaled by a jump, so this stays a leaf with no frame.
 */
uint64_t clock_ns(void)
{
	uint64_t hz = arch_cycles_per_second();
	if (unlikely(__atomic_load_n(&scale.hz, __ATOMIC_ACQUIRE) != hz))
		return clock_ns_rescaled(hz);
	uint64_t c = arch_cycles() - boot_info.entry_cycles;
	return c * scale.whole + (uint64_t)(((unsigned __int128)c * scale.frac) >> 64);
}

void thread_sleep_ms(uint64_t ms)
{
	thread_sleep_ticks(ms_to_ticks(ms));
}

/*
 * A CPU's fast tick: its timer interrupts factor times a tick; every
 * factor-th interrupt is also the tick, so the tick count, the scheduler
 * and timer.tick still come HZ times a second whatever the factor: no
 * tick is gained or lost. (The arch timer's period is its rate over
 * HZ * factor, truncated to whole counts, so a tick may be up to factor
 * counts shorter than at one interrupt a tick: x86's APIC timer counts
 * about 62.5 M a second, 625 k a tick, so at factor 100 under 0.02%,
 * the size of the boot calibration's own error.) Two clients ask for one:
 *   the monitor (clock_set_fast_tick): exactly fn_factor interrupts a
 *     tick, fn called on each of them;
 *   the profile provider (clock_want_profile_factor, from profile_tick):
 *     at least profile_factor a tick, profile_tick called on each.
 * factor serves both: their least common multiple, or where that is
 * above what the timer does (arch_timer_max_hz), the least multiple of
 * fn_factor that is at least profile_factor (profile_tick fires what is
 * due on any interrupt, so a finer clock only makes it more punctual).
 * Touched only by its own CPU, with interrupts masked.
 */
struct fast_tick {
	unsigned factor;		/* 0 or 1: the timer interrupts once a tick */
	unsigned count;			/* interrupts since the last tick */
	unsigned fn_factor;		/* the monitor's (0 or 1: none) */
	void (*fn)(void);		/* called fn_factor times a tick (not in timer-only mode) */
	unsigned profile_factor;	/* the profile provider's (0 or 1: none) */
	unsigned profile_wanted;	/* asked for, applied at the next tick */
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

static unsigned gcd(unsigned a, unsigned b)
{
	while (b) {
		unsigned r = a % b;
		a = b;
		b = r;
	}
	return a;
}

/* Interrupts a tick for both clients (struct fast_tick). */
static unsigned combined_factor(const struct fast_tick *ft)
{
	unsigned a = ft->fn_factor > 1 ? ft->fn_factor : 1;
	unsigned b = ft->profile_factor > 1 ? ft->profile_factor : 1;
	unsigned most = (unsigned)(arch_timer_max_hz() / HZ);
	unsigned lcm = a / gcd(a, b) * b;

	if (lcm <= a || lcm <= most)
		return lcm;
	return a * ((b + a - 1) / a);
}

/* Restart this CPU's timer at its combined factor (a tick starts now). Interrupts masked. */
static void apply_factor(struct fast_tick *ft)
{
	ft->count = 0;
	ft->factor = combined_factor(ft);
	arch_timer_start(HZ * ft->factor);
}

void clock_set_fast_tick(unsigned factor, void (*fn)(void))
{
	irqflags_t f = arch_irq_save();
	struct fast_tick *ft = &fast_ticks[this_cpu_index()];
	ft->fn = factor > 1 ? fn : NULL;
	ft->fn_factor = factor > 1 ? factor : 1;
	apply_factor(ft);
	arch_irq_restore(f);
}

void clock_want_profile_factor(unsigned factor)
{
	fast_ticks[this_cpu_index()].profile_wanted = factor > 1 ? factor : 1;
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
	bool tick = interrupt_is_tick(ft);
	unsigned factor = ft->factor > 1 ? ft->factor : 1;

	if (ft->fn && ft->count % (factor / ft->fn_factor) == 0)
		ft->fn();
	if (tick) {
		count_tick();
		sched_tick();
	}
	profile_tick(NS_PER_TICK / factor);
	if (!tick)
		return;
	timer_tick_event(this_cpu_index(), clock_ticks());
	/* The profile provider's new rate starts with a tick, so no tick is cut short. */
	if (ft->profile_wanted != ft->profile_factor) {
		ft->profile_factor = ft->profile_wanted;
		if (combined_factor(ft) != factor)
			apply_factor(ft);
	}
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
