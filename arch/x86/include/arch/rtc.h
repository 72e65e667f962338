/* SPDX-License-Identifier: BSD-2-Clause */
/* The machine's real-time clock: wall-clock time for D's walltimestamp. */
#ifndef ARCH_RTC_H
#define ARCH_RTC_H

#include <stdint.h>

/*
 * arch_rtc_seconds - seconds since 1970-01-01 00:00 UTC by the
 *   battery-backed clock (whole seconds).
 * Return value: the time, or 0 when the clock reads as nonsense.
 * Caller's context: thread (it may wait up to a clock update, ~2 ms).
 */
uint64_t arch_rtc_seconds(void);

#endif
