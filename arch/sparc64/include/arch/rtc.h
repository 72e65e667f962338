/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Wall-clock time on sparc64: sun4u's M48T59 clock is not read yet, so
 * arch_rtc_seconds returns 0 (1970-01-01), which file timestamps and
 * trace records then carry. Same contract as arch/x86/include/arch/rtc.h.
 */
#ifndef ARCH_RTC_H
#define ARCH_RTC_H

#include <stdint.h>

/* Seconds since the Unix epoch; 0 on sparc64 (no RTC driver yet). */
uint64_t arch_rtc_seconds(void);

#endif
