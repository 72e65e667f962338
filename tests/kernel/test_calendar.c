// SPDX-License-Identifier: BSD-2-Clause
/*
 * In-kernel tests of the calendar arithmetic (scion/calendar.h) the
 * monitor's simulated calendar and the shell's dates use: every day of
 * 400 years (one whole era, leap rules included) goes to a date and
 * back, known dates have their known day numbers, and text that is not
 * a date, or a day the month lacks, is refused.
 */
#include <scion/ktest.h>
#include <scion/calendar.h>
#include <scion/string.h>

KTEST(calendar_days_round_trip, 1)
{
	struct calendar_date prev = calendar_date_from_days(-146097 - 1);
	for (int64_t day = -146097; day < 146097; day++) {
		struct calendar_date d = calendar_date_from_days(day);
		KT_ASSERT(t, calendar_days_from_date(&d) == day, "day %lld came back as %lld",
			  (long long)day, (long long)calendar_days_from_date(&d));
		bool next_day = d.year == prev.year && d.month == prev.month && d.day == prev.day + 1;
		bool next_month = d.day == 1 && ((d.year == prev.year && d.month == prev.month + 1) ||
						 (d.year == prev.year + 1 && d.month == 1 &&
						  prev.month == 12 && prev.day == 31));
		KT_ASSERT(t, next_day || next_month, "day %lld: %lld-%u-%u after %lld-%u-%u",
			  (long long)day, (long long)d.year, d.month, d.day, (long long)prev.year,
			  prev.month, prev.day);
		prev = d;
	}
}

KTEST(calendar_known_dates, 1)
{
	static const struct { const char *text; int64_t seconds; } known[] = {
		{ "1970-01-01", 0 },
		{ "2000-02-29", 951782400 },
		{ "2026-11-25", 1795564800 },
		{ "2026-11-25T13:45", 1795564800 + 13 * 3600 + 45 * 60 },
		{ "2100-03-01T00:00:01", 4107542401 },
		{ "1969-12-31T23:59:59", -1 },
	};
	for (unsigned i = 0; i < sizeof(known) / sizeof(known[0]); i++) {
		int64_t s = 12345;
		KT_EXPECT(t, calendar_parse(known[i].text, &s) == 0 && s == known[i].seconds,
			  "%s parsed as %lld, not %lld", known[i].text, (long long)s,
			  (long long)known[i].seconds);
		char text[32];
		calendar_format(known[i].seconds, text, sizeof(text));
		KT_EXPECT(t, !strncmp(text, known[i].text, 10), "%lld formatted as %s",
			  (long long)known[i].seconds, text);
	}
}

KTEST(calendar_refuses_non_dates, 1)
{
	static const char *const bad[] = {
		"", "2026", "2026-11", "2026-11-25x", "2026-13-01", "2026-00-10", "2026-02-29",
		"2100-02-29", "2026-04-31", "2026-11-25T24:00", "2026-11-25T12:60", "2026-11-25T12",
		"2026-11-25T12:00:61", "26-11-25", "2026/11/25", "2026-11-25 12:00",
	};
	for (unsigned i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		int64_t s = 777;
		KT_EXPECT(t, calendar_parse(bad[i], &s) != 0 && s == 777, "'%s' was taken as %lld",
			  bad[i], (long long)s);
	}
}

KTEST(calendar_day_and_time_of_day, 1)
{
	static const struct { int64_t wall_ns, day; uint32_t ms; const char *date; } known[] = {
		{ 0, 0, 0, "1970-01-01" },
		{ 86399999999999ll, 0, 86399999, "1970-01-01" },
		{ 1795564800000000000ll + 37800123456789ll, 20782, 37800123, "2026-11-25" },
		{ -1, -1, 86399999, "1969-12-31" },		/* before 1970: floor, not truncate */
		{ -86400000000000ll, -1, 0, "1969-12-31" },
	};
	for (unsigned i = 0; i < sizeof(known) / sizeof(known[0]); i++) {
		char date[16];
		calendar_format_date(known[i].wall_ns / 1000000000ll -
				     (known[i].wall_ns % 1000000000ll < 0), date, sizeof(date));
		KT_EXPECT(t, calendar_day_of(known[i].wall_ns) == known[i].day &&
			  calendar_ms_of_day(known[i].wall_ns) == known[i].ms &&
			  !strcmp(date, known[i].date),
			  "%lld ns: day %lld, %u ms into it, %s", (long long)known[i].wall_ns,
			  (long long)calendar_day_of(known[i].wall_ns),
			  calendar_ms_of_day(known[i].wall_ns), date);
	}
}
