/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Wall-clock time on sparc64: sun4u's M48T59 clock (arch/sparc64/rtc.c),
 * read through physical ASI 0x15 like the other EBus devices. Same
 * contract as arch/x86/include/arch/rtc.h.
 */
#ifndef ARCH_RTC_H
#define ARCH_RTC_H

#include <stdint.h>

/* Seconds since the Unix epoch (UTC), or 0 when the clock reads as no date. */
uint64_t arch_rtc_seconds(void);

#endif
