/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Kernel time: the tick count (HZ per second, advanced by CPU 0's timer)
 * and nanoseconds since boot from the cycle counter.
 */
#ifndef SCION_CLOCK_H
#define SCION_CLOCK_H

#include <scion/compiler.h>

#define HZ 100

/* Timer ticks since the tick started. Any context. */
uint64_t clock_ticks(void);

/* Nanoseconds since boot (cycle counter based). Any context. */
uint64_t clock_ns(void);

/* A number of cycles of the cycle counter in nanoseconds (0 before it is measured). Any context. */
uint64_t clock_cycles_to_ns(uint64_t cycles);

/* What clock_ns() read when the cycle counter read cycles (0 before the kernel's entry). */
uint64_t clock_ns_at(uint64_t cycles);

/* Sleep for at least ms milliseconds. Caller's context: thread, may sleep. */
void thread_sleep_ms(uint64_t ms);

/* Convert milliseconds to ticks, rounding up. */
static inline uint64_t ms_to_ticks(uint64_t ms)
{
	return (ms * HZ + 999) / 1000;
}

/* Called by arch code on every timer interrupt of every CPU. */
void clock_timer_interrupt(void);

/*
 * Only the tick count's part of a timer interrupt, for ticks that arrive
 * while a graft runs with only the timer unmasked (the scheduler's part
 * would need sched_lock, which the graft's caller may hold).
 */
void clock_count_tick(void);

/*
 * clock_set_fast_tick - Overview: make the calling CPU's timer interrupt
 *   factor times a tick, calling fn on every interrupt, for work that
 *   needs a finer clock than HZ for a while (the monitor's 1 ms bursts);
 *   the tick itself (count, scheduler, timer.tick) still comes every
 *   factor-th interrupt. factor 0 or 1 returns to one interrupt a tick.
 *   While a profile probe faster than the tick is live on the CPU the
 *   timer may interrupt a multiple of factor times a tick
 *   (clock_want_profile_factor); fn is still called factor times a tick,
 *   evenly spaced.
 * Arguments: factor; fn (any context: it runs in the timer interrupt
 *   with interrupts masked; not called while a graft holds the CPU in
 *   timer-only mode, so it may take a leaf spinlock of its own).
 * Return value: none.
 * Caller's context: thread bound to the CPU it changes; does not sleep.
 */
void clock_set_fast_tick(unsigned factor, void (*fn)(void));

/*
 * clock_want_profile_factor - Overview: the profile provider asks for at
 *   least factor timer interrupts a tick on the calling CPU (it fires what
 *   is due on each: profile_tick); 0 or 1 when it needs none. Applied at
 *   the CPU's next tick, combined with the monitor's clock_set_fast_tick;
 *   the tick itself stays HZ a second.
 * Arguments: factor, at most arch_timer_max_hz() / HZ (the caller keeps
 *   it there).
 * Return value: none.
 * Caller's context: the calling CPU's timer interrupt (profile_tick),
 *   interrupts masked.
 */
void clock_want_profile_factor(unsigned factor);

/* Start the tick on the calling CPU. */
void clock_start_cpu(void);

#endif
