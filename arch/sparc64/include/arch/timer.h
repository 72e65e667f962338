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
 *   ask of arch_timer_start (see arch/x86/include/arch/timer.h). 1 kHz on
 *   sparc64, not x86's 10 kHz: every timer interrupt also polls the
 *   console and channel UARTs (arch/sparc64/trap.c; device interrupts are
 *   not routed), which the monitor's 1 ms bursts already do at this rate,
 *   and QEMU's sun4u emulates each interrupt at a cost well above a tick.
 * Arguments: none.
 * Return value: interrupts per second: 1000, a multiple of HZ.
 * Caller's context: any.
 */
static inline uint64_t arch_timer_max_hz(void)
{
	return 1000;
}

/* Busy-wait us microseconds on %tick. */
void arch_udelay(uint64_t us);

#endif
