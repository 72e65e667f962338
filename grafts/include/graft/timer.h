/* SPDX-License-Identifier: BSD-2-Clause */
/* Graft points of the clock (kernel/sched/clock.c). */
#ifndef GRAFT_TIMER_H
#define GRAFT_TIMER_H

#include <graft/graft.h>

/*
 * timer.tick (event) - Overview: a timer tick arrived on a CPU (every
 *   CPU ticks HZ = 100 times a second).
 * Arguments: cpu, the CPU's index; ticks, the kernel's tick count.
 * What it may change: nothing in the kernel (its own data only).
 * Caller's context: the timer interrupt, interrupts masked (handlers run
 *   with only the timer unmasked), no locks held; may not sleep.
 *   Default: nothing (the kernel's own tick work is done before).
 */
#define GRAFT_POINT_timer_tick "timer.tick", void, (unsigned cpu, uint64_t ticks)
GRAFT_POINT_TYPEDEF(timer_tick);

#endif
