// SPDX-License-Identifier: BSD-2-Clause
/*
 * Calendar arithmetic (scion/calendar.h): days and dates by the usual
 * era decomposition (400-year eras of 146097 days, years starting in
 * March so the leap day is last), integer only.
 */
#include <scion/calendar.h>
#include <scion/errno.h>
#include <scion/format.h>

#define DAYS_PER_ERA      146097
#define DAYS_1970_FROM_0  719468	/* 0000-03-01 to 1970-01-01 */
#define SECONDS_PER_DAY   86400
#define NS_PER_MS         1000000ll
#define NS_PER_DAY        (SECONDS_PER_DAY * 1000000000ll)

static int64_t floor_div(int64_t a, int64_t b)
{
	return a / b - (a % b < 0);
}

int64_t calendar_days_from_date(const struct calendar_date *date)
{
	int64_t y = date->year - (date->month <= 2);
	int64_t era = floor_div(y, 400);
	int64_t year_of_era = y - era * 400;
	int64_t month_from_march = (date->month + 9) % 12;
	int64_t day_of_year = (153 * month_from_march + 2) / 5 + date->day - 1;
	int64_t day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
	return era * DAYS_PER_ERA + day_of_era - DAYS_1970_FROM_0;
}

struct calendar_date calendar_date_from_days(int64_t days)
{
	int64_t z = days + DAYS_1970_FROM_0;
	int64_t era = floor_div(z, DAYS_PER_ERA);
	int64_t day_of_era = z - era * DAYS_PER_ERA;
	int64_t year_of_era = (day_of_era - day_of_era / 1460 + day_of_era / 36524 -
			       day_of_era / 146096) / 365;
	int64_t day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
	int64_t month_from_march = (5 * day_of_year + 2) / 153;
	struct calendar_date d;
	d.day = (unsigned)(day_of_year - (153 * month_from_march + 2) / 5 + 1);
	d.month = (unsigned)(month_from_march < 10 ? month_from_march + 3 : month_from_march - 9);
	d.year = year_of_era + era * 400 + (d.month <= 2);
	return d;
}

/* Exactly digits decimal digits at *p; advances it. */
static bool take_number(const char **p, unsigned digits, int64_t *out)
{
	int64_t v = 0;
	for (unsigned i = 0; i < digits; i++, (*p)++) {
		if (**p < '0' || **p > '9')
			return false;
		v = v * 10 + (**p - '0');
	}
	*out = v;
	return true;
}

static bool take_char(const char **p, char c)
{
	if (**p != c)
		return false;
	(*p)++;
	return true;
}

int calendar_parse(const char *text, int64_t *seconds)
{
	const char *p = text;
	int64_t y, mo, d, h = 0, mi = 0, s = 0;
	if (!take_number(&p, 4, &y) || !take_char(&p, '-') || !take_number(&p, 2, &mo) ||
	    !take_char(&p, '-') || !take_number(&p, 2, &d))
		return -EINVAL;
	if (take_char(&p, 'T') && (!take_number(&p, 2, &h) || !take_char(&p, ':') ||
				   !take_number(&p, 2, &mi) ||
				   (take_char(&p, ':') && !take_number(&p, 2, &s))))
		return -EINVAL;
	if (*p || mo < 1 || mo > 12 || d < 1 || h > 23 || mi > 59 || s > 59)
		return -EINVAL;
	struct calendar_date date = { y, (unsigned)mo, (unsigned)d };
	int64_t days = calendar_days_from_date(&date);
	struct calendar_date back = calendar_date_from_days(days);
	if (back.month != date.month)
		return -EINVAL;		/* 2026-02-30 */
	*seconds = days * SECONDS_PER_DAY + h * 3600 + mi * 60 + s;
	return 0;
}

void calendar_format(int64_t seconds, char *buf, size_t size)
{
	int64_t days = floor_div(seconds, SECONDS_PER_DAY);
	int64_t in_day = seconds - days * SECONDS_PER_DAY;
	struct calendar_date d = calendar_date_from_days(days);
	snprintf(buf, size, "%04lld-%02u-%02u %02lld:%02lld:%02lld", (long long)d.year, d.month, d.day,
		 (long long)(in_day / 3600), (long long)(in_day / 60 % 60), (long long)(in_day % 60));
}

void calendar_format_date(int64_t seconds, char *buf, size_t size)
{
	struct calendar_date d = calendar_date_from_days(floor_div(seconds, SECONDS_PER_DAY));
	snprintf(buf, size, "%04lld-%02u-%02u", (long long)d.year, d.month, d.day);
}

int64_t calendar_day_of(int64_t wall_ns)
{
	return floor_div(wall_ns, NS_PER_DAY);
}

uint32_t calendar_ms_of_day(int64_t wall_ns)
{
	return (uint32_t)((wall_ns - calendar_day_of(wall_ns) * NS_PER_DAY) / NS_PER_MS);
}
