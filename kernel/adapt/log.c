// SPDX-License-Identifier: BSD-2-Clause
/*
 * Step 6 of the adaptation loop, the record of it: each step of a
 * decision is one line `adapt: #N ...` on the kernel log and in a ring
 * of the last ADAPT_LOG_LINES lines that `adapt log` prints (the sdt
 * probes are at the steps, in loop.c and decide.c). Lock: log_lock, a
 * spinlock taken last, never held across anything but the copy.
 */
#include <scion/printk.h>
#include <scion/format.h>
#include <scion/string.h>
#include <scion/spinlock.h>
#include "adapt_internal.h"

#define ADAPT_LOG_LINES	256
#define ADAPT_LOG_WIDTH	200

static struct spinlock log_lock = SPINLOCK_INIT("adapt_log");
static char log_ring[ADAPT_LOG_LINES][ADAPT_LOG_WIDTH];	/* log_lock */
static uint64_t log_lines;				/* log_lock: written since boot */

void adapt_log(uint64_t n, const char *fmt, ...)
{
	char line[ADAPT_LOG_WIDTH];
	va_list ap;
	size_t at = (size_t)snprintf(line, sizeof(line), "#%llu ", (unsigned long long)n);

	va_start(ap, fmt);
	vsnprintf(line + at, sizeof(line) - at, fmt, ap);
	va_end(ap);
	printk("adapt: %s\n", line);
	irqflags_t flags = spin_lock_irqsave(&log_lock);
	strlcpy(log_ring[log_lines % ADAPT_LOG_LINES], line, ADAPT_LOG_WIDTH);
	log_lines++;
	spin_unlock_irqrestore(&log_lock, flags);
}

void adapt_log_print(void)
{
	static char copy[ADAPT_LOG_LINES][ADAPT_LOG_WIDTH];	/* adapt.lock (the command's) */
	irqflags_t flags = spin_lock_irqsave(&log_lock);
	uint64_t total = log_lines;
	uint64_t first = total > ADAPT_LOG_LINES ? total - ADAPT_LOG_LINES : 0;
	for (uint64_t k = first; k < total; k++)
		memcpy(copy[k - first], log_ring[k % ADAPT_LOG_LINES], ADAPT_LOG_WIDTH);
	spin_unlock_irqrestore(&log_lock, flags);
	printk("adapt log: %llu lines (the last %llu)\n", (unsigned long long)total,
	       (unsigned long long)(total - first));
	for (uint64_t k = 0; k < total - first; k++)
		printk("  %s\n", copy[k]);
}
