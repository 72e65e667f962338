/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The timer and cycle counter on sparc64: %tick counts cycles, %tick_cmpr
 * raises interrupt level 14 (arch/sparc64/timer.c). Same contract as
 * arch/x86/include/arch/timer.h.
 */
#ifndef ARCH_TIMER_H
#define ARCH_TIMER_H

#include <stdint.h>

/* The rate of arch_cycles(): %tick's frequency. */
uint64_t arch_cycles_per_second(void);

/* Start the periodic interrupt at hz on this CPU (interrupts stay as they are). */
void arch_timer_start(unsigned hz);

/*
 * arch_timer_max_hz - Overview: the fastest rate the profile provider may
 *   ask of arch_timer_start (see arch/x86/include/arch/timer.h). Not
 *   finer than the tick yet on sparc64: every timer interrupt also polls
 *   the console and channel UARTs (arch/sparc64/trap.c; device
 *   interrupts are not routed), so profile-N and tick-N stop at HZ here
 *   and say so. (The monitor's 1 ms bursts still run: clock_set_fast_tick
 *   is not bounded by this.)
 * Arguments: none.
 * Return value: interrupts per second: 100, HZ.
 * Caller's context: any.
 */
static inline uint64_t arch_timer_max_hz(void)
{
	return 100;
}

/* Busy-wait us microseconds on %tick. */
void arch_udelay(uint64_t us);

#endif
