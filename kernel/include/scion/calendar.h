/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The proleptic Gregorian calendar in whole days since 1970-01-01, for
 * the monitor's simulated calendar and the shell's dates. Any context.
 */
#ifndef SCION_CALENDAR_H
#define SCION_CALENDAR_H

#include <scion/compiler.h>

struct calendar_date {
	int64_t year;
	unsigned month;		/* 1..12 */
	unsigned day;		/* 1..31 */
};

/* Days from 1970-01-01 to date (negative before it); date need not be checked. */
int64_t calendar_days_from_date(const struct calendar_date *date);

/* The date days after 1970-01-01. */
struct calendar_date calendar_date_from_days(int64_t days);

/*
 * calendar_parse - "YYYY-MM-DD", optionally "THH:MM" or "THH:MM:SS"
 *   after it (UTC), as seconds since 1970.
 * Return value: 0 with *seconds, or -EINVAL for anything else
 *   (including a day the month does not have).
 */
int calendar_parse(const char *text, int64_t *seconds);

/* Format seconds since 1970 as "YYYY-MM-DD HH:MM:SS" into buf (at least 20 bytes). */
void calendar_format(int64_t seconds, char *buf, size_t size);

/* Format the day of seconds since 1970 as "YYYY-MM-DD" into buf (at least 11 bytes). */
void calendar_format_date(int64_t seconds, char *buf, size_t size);

/* The day number (days since 1970-01-01) and the milliseconds into it of wall_ns, ns since 1970. */
int64_t calendar_day_of(int64_t wall_ns);
uint32_t calendar_ms_of_day(int64_t wall_ns);

#endif
