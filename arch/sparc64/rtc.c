// SPDX-License-Identifier: BSD-2-Clause
/*
 * Wall-clock time from sun4u's M48T59 (QEMU maps its 8 KB of NVRAM, byte
 * for byte, at offset 0x2000 of the EBus's I/O space: physical
 * 0x1fe02002000, read through ASI 0x15). Its clock is the last
 * eight bytes of the 8 KB NVRAM, in BCD: seconds at 0x1ff9 up to the year
 * at 0x1fff, which counts from 1968 (QEMU's base year for sun4u), modulo
 * 100. Read twice until two reads agree, so an update in the middle of a
 * read cannot tear it.
 */
#include <arch/rtc.h>
#include <scion/calendar.h>

#include "sparc64_internal.h"

#define NVRAM_BASE	0x1fe02002000ull
#define CLOCK_SECONDS	0x1ff9	/* then minutes, hours, day of week, date, month, year */
#define BASE_YEAR	1968

static uint8_t nvram_read(unsigned addr)
{
	return phys_in8(NVRAM_BASE + addr);
}

static unsigned from_bcd(uint8_t v)
{
	return (v & 0x0f) + (v >> 4) * 10;
}

/* Seconds since the epoch from one read of the clock, or 0 when it reads as no date. */
static uint64_t read_once(void)
{
	unsigned sec = from_bcd(nvram_read(CLOCK_SECONDS) & 0x7f);
	unsigned min = from_bcd(nvram_read(CLOCK_SECONDS + 1) & 0x7f);
	unsigned hour = from_bcd(nvram_read(CLOCK_SECONDS + 2) & 0x3f);
	unsigned day = from_bcd(nvram_read(CLOCK_SECONDS + 4) & 0x3f);
	unsigned month = from_bcd(nvram_read(CLOCK_SECONDS + 5) & 0x1f);
	unsigned year = from_bcd(nvram_read(CLOCK_SECONDS + 6));

	if (month < 1 || month > 12 || day < 1 || day > 31 || hour > 23 || min > 59 || sec > 59)
		return 0;
	/* Years count from BASE_YEAR modulo 100: the century that keeps the date after it. */
	struct calendar_date d = { BASE_YEAR + year, month, day };
	int64_t days = calendar_days_from_date(&d);
	if (days < 0)
		return 0;
	return (uint64_t)days * 86400 + hour * 3600 + min * 60 + sec;
}

uint64_t arch_rtc_seconds(void)
{
	uint64_t a = read_once(), b;
	while ((b = read_once()) != a)
		a = b;
	return a;
}
