/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Time on x86: the TSC as clock, the local APIC timer as the periodic
 * scheduler tick, both calibrated against the PIT at boot.
 */
#ifndef ARCH_TIMER_H
#define ARCH_TIMER_H

#include <stdint.h>

/* The TSC's rate (timer.c): 0 until the boot calibration sets it, once. */
extern uint64_t x86_tsc_hz;

/*
 * arch_cycles_per_second - the cycle counter's rate, measured at boot.
 * Inline: clock_ns() asks on every call, a context switch among them.
 * Return value: counts per second, 0 before calibration.
 * Caller's context: any.
 */
static inline uint64_t arch_cycles_per_second(void)
{
	return x86_tsc_hz;
}

/*
 * arch_timer_start - start the calling CPU's periodic tick.
 * Arguments: hz, interrupts per second; each calls clock_timer_interrupt()
 *   (kernel/sched/clock.c) in interrupt context.
 * Return value: none.
 * Caller's context: each CPU once, after calibration, interrupts masked.
 */
void arch_timer_start(unsigned hz);

/*
 * arch_timer_max_hz - Overview: the fastest rate arch_timer_start may be
 *   given: the clock runs its fast ticks (clock_set_fast_tick, and the
 *   profile provider's profile-N/tick-N above HZ) at multiples of HZ up
 *   to it, and the profile provider refuses anything faster. On x86 the
 *   local APIC timer (divide 16, tens of MHz under QEMU) leaves thousands
 *   of counts in a 100 us period; 10 kHz is the bound Scion keeps to, so
 *   that a CPU spends a small share of its time in timer interrupts
 *   (measured in `make bench`: the profile provider's cost per firing).
 * Arguments: none.
 * Return value: interrupts per second, a multiple of HZ (10000).
 * Caller's context: any.
 */
static inline uint64_t arch_timer_max_hz(void)
{
	return 10000;
}

/*
 * arch_udelay - busy-wait for at least us microseconds.
 * Caller's context: any once calibrated; spins with interrupts as they
 *   are. Meant for device and start-up delays, not for waiting on events.
 */
void arch_udelay(uint64_t us);

#endif
