// SPDX-License-Identifier: BSD-2-Clause
/*
 * Wall-clock time from the PC's CMOS real-time clock (MC146818 layout,
 * as QEMU emulates it): read twice until two reads agree, so an update
 * in the middle of a read cannot tear it; BCD or binary and 12- or
 * 24-hour forms as status register B says.
 */
#include <arch/x86.h>
#include <arch/rtc.h>
#include <arch/cpu.h>

enum cmos_register {
	CMOS_SECONDS = 0x00, CMOS_MINUTES = 0x02, CMOS_HOURS = 0x04, CMOS_DAY = 0x07,
	CMOS_MONTH = 0x08, CMOS_YEAR = 0x09, CMOS_STATUS_A = 0x0a, CMOS_STATUS_B = 0x0b,
	CMOS_CENTURY = 0x32,
};

#define CMOS_INDEX_PORT 0x70
#define CMOS_DATA_PORT  0x71
#define CMOS_NMI_OFF    0x80	/* keep NMIs masked while the index is set, as firmware does */
#define STATUS_A_UPDATING 0x80
#define STATUS_B_24H    0x02
#define STATUS_B_BINARY 0x04
#define HOURS_PM        0x80

static uint8_t cmos_read(enum cmos_register r)
{
	outb(CMOS_INDEX_PORT, CMOS_NMI_OFF | r);
	return inb(CMOS_DATA_PORT);
}

struct rtc_time {
	uint8_t sec, min, hour, day, month, year, century;
};

static void read_once(struct rtc_time *t)
{
	while (cmos_read(CMOS_STATUS_A) & STATUS_A_UPDATING)
		;
	t->sec = cmos_read(CMOS_SECONDS);
	t->min = cmos_read(CMOS_MINUTES);
	t->hour = cmos_read(CMOS_HOURS);
	t->day = cmos_read(CMOS_DAY);
	t->month = cmos_read(CMOS_MONTH);
	t->year = cmos_read(CMOS_YEAR);
	t->century = cmos_read(CMOS_CENTURY);
}

static unsigned from_bcd(uint8_t v)
{
	return (v & 0x0f) + (v >> 4) * 10;
}

/* Days from 1970-01-01 to year-month-day (proleptic Gregorian). */
static uint64_t days_since_epoch(unsigned year, unsigned month, unsigned day)
{
	static const unsigned before_month[12] = { 0, 31, 59, 90, 120, 151, 181, 212, 243, 273,
						   304, 334 };
	uint64_t days = 0;
	for (unsigned y = 1970; y < year; y++)
		days += (y % 4 == 0 && (y % 100 != 0 || y % 400 == 0)) ? 366 : 365;
	days += before_month[(month - 1) % 12];
	if (month > 2 && year % 4 == 0 && (year % 100 != 0 || year % 400 == 0))
		days++;
	return days + day - 1;
}

uint64_t arch_rtc_seconds(void)
{
	struct rtc_time a, b;
	irqflags_t f = arch_irq_save();
	read_once(&b);
	do {
		a = b;
		read_once(&b);
	} while (a.sec != b.sec || a.min != b.min || a.hour != b.hour || a.day != b.day ||
		 a.month != b.month || a.year != b.year);
	uint8_t status = cmos_read(CMOS_STATUS_B);
	arch_irq_restore(f);

	bool pm = a.hour & HOURS_PM;
	a.hour &= (uint8_t)~HOURS_PM;
	unsigned sec = a.sec, min = a.min, hour = a.hour, day = a.day, month = a.month,
		 year = a.year, century = a.century;
	if (!(status & STATUS_B_BINARY)) {
		sec = from_bcd(a.sec);
		min = from_bcd(a.min);
		hour = from_bcd(a.hour);
		day = from_bcd(a.day);
		month = from_bcd(a.month);
		year = from_bcd(a.year);
		century = from_bcd(a.century);
	}
	if (!(status & STATUS_B_24H))
		hour = hour % 12 + (pm ? 12 : 0);
	year += (century >= 19 && century <= 99 ? century : 20) * 100;
	if (month < 1 || month > 12 || day < 1 || day > 31)
		return 0;
	return days_since_epoch(year, month, day) * 86400 + hour * 3600 + min * 60 + sec;
}
