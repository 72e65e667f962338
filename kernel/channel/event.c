// SPDX-License-Identifier: BSD-2-Clause
/*
 * Kernel events for the host: one line each ("graft: 'x' aborted at
 * bcache.evict: ..."), numbered from 1, kept in a ring of the last
 * EVENT_SLOTS and sent as EVENT frames by the channel's output thread
 * (stream.c). channel_event may be called from any context: a graft
 * aborted inside the scheduler posts one with sched_lock held, so it
 * only wakes the output thread when this CPU holds no spinlock (the
 * thread polls otherwise). An event overwritten before it was sent is
 * counted as lost, and the host sees the gap in the numbers.
 *
 * Lock order: events.lock is a leaf (interrupts masked while held).
 */
#include <scion/channel.h>
#include <scion/spinlock.h>
#include <scion/format.h>
#include <scion/string.h>
#include <scion/clock.h>
#include <scion/cpu.h>
#include <scion/printk.h>
#include <scion/shell.h>
#include <scion/errno.h>
#include <scion/mutex.h>
#include "channel_internal.h"

#define EVENT_SLOTS 64		/* a power of two */

static struct {
	struct spinlock lock;
	uint64_t posted;			/* lock: number of the newest event */
	uint64_t sent;				/* lock: number of the newest event taken to send */
	uint64_t lost;				/* lock: overwritten before they were sent */
	struct {
		uint64_t ms;			/* uptime when posted */
		char text[CHANNEL_EVENT_TEXT];
	} slot[EVENT_SLOTS];			/* lock: event n is in slot n % EVENT_SLOTS */
} events = { .lock = SPINLOCK_INIT("channel-events") };

void channel_event(const char *fmt, ...)
{
	char text[CHANNEL_EVENT_TEXT];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	for (char *p = text; *p; p++)	/* one line, printable */
		if (*p < ' ' || *p > '~')
			*p = ' ';
	uint64_t ms = clock_ticks() * 1000 / HZ;

	irqflags_t f = spin_lock_irqsave(&events.lock);
	uint64_t n = ++events.posted;
	if (n - events.sent > EVENT_SLOTS) {	/* the oldest unsent one is overwritten */
		events.sent++;
		events.lost++;
	}
	events.slot[n % EVENT_SLOTS].ms = ms;
	strlcpy(events.slot[n % EVENT_SLOTS].text, text, CHANNEL_EVENT_TEXT);
	spin_unlock_irqrestore(&events.lock, f);
	if (this_cpu()->lock_depth == 0)
		channel_wake_output();
}

/* Event n as its wire text "N MS TEXT" into buf (at least CHANNEL_EVENT_LINE bytes). */
static size_t format_event(uint64_t n, char *buf)
{
	return (size_t)snprintf(buf, CHANNEL_EVENT_LINE, "%llu %llu %s", (unsigned long long)n,
				(unsigned long long)events.slot[n % EVENT_SLOTS].ms,
				events.slot[n % EVENT_SLOTS].text);
}

size_t channel_event_take(char *buf)
{
	size_t len = 0;
	irqflags_t f = spin_lock_irqsave(&events.lock);
	if (events.sent < events.posted)
		len = format_event(++events.sent, buf);
	spin_unlock_irqrestore(&events.lock, f);
	return len;
}

bool channel_event_pending(void)
{
	return READ_ONCE(events.sent) != READ_ONCE(events.posted);
}

/*
 * The events still in the ring, oldest first: fn(n, ms, text) for each
 * (text is a copy, so fn may sleep). Return value: the number of the
 * newest event posted; *lost: those overwritten before they were sent.
 */
static uint64_t events_foreach(void (*fn)(uint64_t n, uint64_t ms, const char *text, void *arg),
			       void *arg, uint64_t *lost)
{
	static char text[CHANNEL_EVENT_TEXT];	/* callers: the shell, the channel thread: one
						   at a time under events_mutex */
	static struct mutex events_mutex = MUTEX_INIT(events_mutex, "channel-events-read");
	irqflags_t f = spin_lock_irqsave(&events.lock);
	uint64_t last = events.posted;
	*lost = events.lost;
	spin_unlock_irqrestore(&events.lock, f);
	uint64_t first = last > EVENT_SLOTS ? last - EVENT_SLOTS + 1 : 1;

	mutex_lock(&events_mutex);
	for (uint64_t n = first; n <= last; n++) {
		uint64_t ms = 0;
		f = spin_lock_irqsave(&events.lock);
		/* Newer events may have overwritten this one since. */
		bool kept = events.posted - n < EVENT_SLOTS;
		if (kept) {
			ms = events.slot[n % EVENT_SLOTS].ms;
			strlcpy(text, events.slot[n % EVENT_SLOTS].text, sizeof(text));
		}
		spin_unlock_irqrestore(&events.lock, f);
		if (kept)
			fn(n, ms, text, arg);
	}
	mutex_unlock(&events_mutex);
	return last;
}

static void print_event(uint64_t n, uint64_t ms, const char *text, void *arg)
{
	(void)arg;
	printk("%6llu %6llu.%03llu  %s\n", (unsigned long long)n, (unsigned long long)(ms / 1000),
	       (unsigned long long)(ms % 1000), text);
}

/* `channel events`: the ones still in the ring, oldest first, one per line. */
int channel_events_print(void)
{
	uint64_t lost, last;
	/* The count line comes first: read it, then print the events it counted and any newer. */
	irqflags_t f = spin_lock_irqsave(&events.lock);
	last = events.posted;
	lost = events.lost;
	spin_unlock_irqrestore(&events.lock, f);
	printk("%llu event%s posted, %llu lost before they were sent\n", (unsigned long long)last,
	       last == 1 ? "" : "s", (unsigned long long)lost);
	events_foreach(print_event, NULL, &lost);
	return 0;
}

static void list_event(uint64_t n, uint64_t ms, const char *text, void *arg)
{
	struct chan_event_info *r = chan_list_add(arg, n);
	if (r) {
		r->number = n;
		r->uptime_ms = ms;
		strlcpy(r->text, text, sizeof(r->text));
	}
}

/* EVENTS: the events still kept, after the request's start. */
int channel_events_request(uint32_t seq, const uint8_t *body, uint32_t len)
{
	struct chan_list l;
	uint64_t lost;
	int err = chan_list_begin(&l, seq, body, len, CHAN_WIRE(chan_event_info), "events",
				  false);
	if (err)
		return err;
	events_foreach(list_event, &l, &lost);
	return chan_list_finish(&l);
}
