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

/* Busy-wait us microseconds on %tick. */
void arch_udelay(uint64_t us);

#endif
