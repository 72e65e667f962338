// SPDX-License-Identifier: BSD-2-Clause
/*
 * The "monitor" stream source (scion/monitor_rec.h): carries the
 * measurement thread's rounds to the host (`scion profile collect`).
 * Opening it writes the source table and turns sampling on if it was
 * off; closing it turns sampling off again in that case. One monitor
 * stream at a time.
 *
 * Each thread is announced once per stream (a MONITOR_REC_THREAD before
 * the first round that samples it), each process likewise (a
 * MONITOR_REC_PROCESS): the announced tids and pids are kept in a small
 * open-addressed set (a pid with PROCESS_KEY set), emptied when full
 * (they are then announced again, which the host takes as the same
 * thread or process).
 *
 * Invariants: bufs is non-NULL exactly while the stream is open; every
 * count covers the stream since it opened, except written_total and
 * dropped_total, which cover every stream since boot.
 * Lock order: stream_lock is a leaf (interrupts masked: a record is
 * written between tbuf_reserve and the unlock).
 */
#include "monitor_internal.h"
#include <scion/channel.h>
#include <scion/chan_proto.h>
#include <scion/chan_wire.h>
#include <scion/errno.h>
#include <scion/format.h>
#include <scion/spinlock.h>
#include <scion/string.h>
#include <scion/tbuf.h>

#define ANNOUNCED_SLOTS 512	/* a power of two */
#define PROCESS_KEY (1ull << 62)	/* a pid in announced[], apart from the tids */

static struct spinlock stream_lock = SPINLOCK_INIT("monitor.stream");
static struct tbuf_set *bufs;			/* stream_lock */
static bool started_sampling;			/* stream_lock: stop when the stream closes */
static uint32_t seq;				/* stream_lock: rounds numbered */
static uint64_t lost_since_written;		/* stream_lock */
static struct monitor_stream_status totals;	/* stream_lock */
static uint64_t redflags_at_open;		/* stream_lock */
static uint64_t announced[ANNOUNCED_SLOTS];	/* stream_lock: tids + 1 (0: empty) */
static unsigned announced_count;		/* stream_lock */
static uint64_t written_total, dropped_total;	/* stream_lock */

bool monitor_stream_open(void)
{
	return READ_ONCE(bufs) != NULL;
}

void monitor_stream_totals(uint64_t *written, uint64_t *dropped)
{
	irqflags_t f = spin_lock_irqsave(&stream_lock);
	*written = written_total;
	*dropped = dropped_total;
	spin_unlock_irqrestore(&stream_lock, f);
}

/* Write one source record. stream_lock held. */
static bool write_source(unsigned index)
{
	const struct monitor_source *s = monitor_source_at(index);
	struct monitor_rec_source *r = tbuf_reserve(bufs, sizeof(*r));
	if (!r)
		return false;
	memset(r, 0, sizeof(*r));	/* tbuf_reserve's room is not zeroed */
	r->head = (struct monitor_rec_head){ MONITOR_REC_SOURCE, sizeof(*r) };
	r->index = (uint16_t)index;
	r->kind = s->kind;
	r->scope = s->scope;
	r->interval_ms = monitor_interval_of(index);
	strlcpy(r->name, s->name, sizeof(r->name));
	strlcpy(r->unit, s->unit, sizeof(r->unit));
	return true;
}

static int monitor_open(struct tbuf_set *set, const char *args, void **priv, char *why,
			size_t whylen)
{
	(void)priv;
	if (*args) {
		snprintf(why, whylen, "the monitor stream takes no arguments");
		return -EINVAL;
	}
	unsigned n = monitor_source_count();
	irqflags_t f = spin_lock_irqsave(&stream_lock);
	if (bufs) {
		spin_unlock_irqrestore(&stream_lock, f);
		snprintf(why, whylen, "a monitor stream is already open (one at a time)");
		return -EBUSY;
	}
	bufs = set;
	seq = 0;
	lost_since_written = 0;
	totals = (struct monitor_stream_status){ .version = MONITOR_STREAM_VERSION };
	redflags_at_open = monitor_redflag_count();
	memset(announced, 0, sizeof(announced));
	announced_count = 0;
	for (unsigned i = 0; i < n; i++)
		if (write_source(i))
			totals.sources++;
	bool complete = totals.sources == n;
	if (!complete)
		bufs = NULL;
	spin_unlock_irqrestore(&stream_lock, f);
	if (!complete) {
		snprintf(why, whylen, "the buffer holds %u of the %u source records: ask for more "
			 "than %u bytes", totals.sources, n,
			 (unsigned)(n * sizeof(struct monitor_rec_source)));
		return -EINVAL;
	}
	struct monitor_ctl_status st;
	monitor_get_status(&st);
	if (!st.running) {
		int err = monitor_start(why, whylen);
		if (err) {
			f = spin_lock_irqsave(&stream_lock);
			bufs = NULL;
			spin_unlock_irqrestore(&stream_lock, f);
			return err;
		}
	}
	f = spin_lock_irqsave(&stream_lock);
	started_sampling = !st.running;
	spin_unlock_irqrestore(&stream_lock, f);
	return 0;
}

static void monitor_close(void *priv)
{
	(void)priv;
	irqflags_t f = spin_lock_irqsave(&stream_lock);
	bool stop = started_sampling;
	bufs = NULL;
	started_sampling = false;
	totals.ended = 1;
	spin_unlock_irqrestore(&stream_lock, f);
	if (stop)
		monitor_stop();
}

static void monitor_drain(void *priv, struct chan_stream_sink *sink)
{
	(void)priv;
	irqflags_t f = spin_lock_irqsave(&stream_lock);
	totals.redflags = monitor_redflag_count() - redflags_at_open;
	struct monitor_stream_status st = totals;
	spin_unlock_irqrestore(&stream_lock, f);
	chan_wire_to_le(CHAN_WIRE(monitor_stream_status), &st, 1);
	chan_stream_send(sink, CHAN_CHUNK_STATUS, 0, 0, &st, sizeof(st));
}

/*
 * A big-endian machine's records to the wire's order, record by record
 * (each where tbuf_reserve put it: 8-aligned). A record's type and size
 * are read before its head is turned; a round's samples follow its
 * fixed part.
 */
static void monitor_to_wire(void *priv, uint8_t *records, uint32_t bytes)
{
	(void)priv;
	for (uint32_t at = 0; at + sizeof(struct monitor_rec_head) <= bytes;) {
		struct monitor_rec_head *h = (struct monitor_rec_head *)(records + at);
		uint16_t type = h->type, size = h->size;
		if (size < sizeof(*h) || size > bytes - at)
			return;		/* not a record this file wrote: leave the rest */
		if (type == MONITOR_REC_SOURCE)
			chan_wire_to_le(CHAN_WIRE(monitor_rec_source), h, 1);
		else if (type == MONITOR_REC_THREAD)
			chan_wire_to_le(CHAN_WIRE(monitor_rec_thread), h, 1);
		else if (type == MONITOR_REC_PROCESS)
			chan_wire_to_le(CHAN_WIRE(monitor_rec_process), h, 1);
		else if (type == MONITOR_REC_ROUND) {
			struct monitor_rec_round *r = (struct monitor_rec_round *)h;
			uint16_t n = r->nsamples;
			chan_wire_to_le(CHAN_WIRE(monitor_sample), r->samples, n);
			chan_wire_to_le(CHAN_WIRE(monitor_rec_round), r, 1);
		} else
			chan_wire_to_le(CHAN_WIRE(monitor_rec_head), h, 1);
		at += (size + TBUF_ALIGN - 1) & ~(uint32_t)(TBUF_ALIGN - 1);
	}
}

CHAN_STREAM_SOURCE_WIRE(monitor_source, "monitor", "(no arguments)", monitor_open, monitor_close,
			monitor_drain, NULL, monitor_to_wire);

/* Whether tid was announced in this stream; notes it if not. stream_lock held. */
static bool announce(uint64_t tid)
{
	if (announced_count >= ANNOUNCED_SLOTS * 3 / 4) {
		memset(announced, 0, sizeof(announced));
		announced_count = 0;
	}
	unsigned slot = (unsigned)(tid * 0x9e3779b97f4a7c15ull >> 55) & (ANNOUNCED_SLOTS - 1);
	while (announced[slot]) {
		if (announced[slot] == tid + 1)
			return true;
		slot = (slot + 1) & (ANNOUNCED_SLOTS - 1);
	}
	announced[slot] = tid + 1;
	announced_count++;
	return false;
}

/* A thread's record found no room (rare: the buffer is full): announce every thread again. */
static void announce_all_again(void)
{
	memset(announced, 0, sizeof(announced));
	announced_count = 0;
}

/*
 * The room for announcing key (a tid, or a pid with PROCESS_KEY) in a
 * record of type and size, zeroed but for its head: NULL when no stream
 * is open, key was announced already, or the buffer is full.
 * stream_lock held (the caller fills the record before unlocking).
 */
static void *announce_record(uint64_t key, uint16_t type, uint16_t size)
{
	if (!bufs || announce(key))
		return NULL;
	struct monitor_rec_head *r = tbuf_reserve(bufs, size);
	if (!r) {
		announce_all_again();
		return NULL;
	}
	memset(r, 0, size);
	*r = (struct monitor_rec_head){ type, size };
	return r;
}

void monitor_stream_thread(uint64_t tid, const char *name)
{
	irqflags_t f = spin_lock_irqsave(&stream_lock);
	struct monitor_rec_thread *r = announce_record(tid, MONITOR_REC_THREAD, sizeof(*r));
	if (r) {
		r->tid = tid;
		strlcpy(r->name, name, sizeof(r->name));
	}
	spin_unlock_irqrestore(&stream_lock, f);
}

/*
 * Write a round as records of at most MONITOR_ROUND_SAMPLES_MAX samples.
 * A part that finds no room is dropped with the rest of the round.
 */
void monitor_stream_round(uint16_t flags, uint64_t mono_ns, int64_t wall_ns,
			  const struct monitor_sample *samples, unsigned n)
{
	irqflags_t f = spin_lock_irqsave(&stream_lock);
	if (!bufs) {
		spin_unlock_irqrestore(&stream_lock, f);
		return;
	}
	uint32_t round = ++seq;
	unsigned at = 0;
	do {
		unsigned part = n - at < MONITOR_ROUND_SAMPLES_MAX ? n - at : MONITOR_ROUND_SAMPLES_MAX;
		uint32_t bytes = (uint32_t)(sizeof(struct monitor_rec_round) +
					    part * sizeof(struct monitor_sample));
		struct monitor_rec_round *r = tbuf_reserve(bufs, bytes);
		if (!r) {
			uint64_t lost = n - at;
			lost_since_written += lost;
			totals.samples_dropped += lost;
			dropped_total += lost;
			if (!at)
				totals.rounds_dropped++;
			break;
		}
		r->head = (struct monitor_rec_head){ MONITOR_REC_ROUND, (uint16_t)bytes };
		r->nsamples = (uint16_t)part;
		r->flags = (uint16_t)(flags | (at ? MONITOR_ROUND_CONTINUED : 0));
		r->seq = round;
		r->lost_before = (uint32_t)(lost_since_written > UINT32_MAX ? UINT32_MAX
									   : lost_since_written);
		r->mono_ns = mono_ns;
		r->wall_ns = wall_ns;
		memcpy(r->samples, samples + at, part * sizeof(*samples));
		lost_since_written = 0;
		totals.samples_written += part;
		written_total += part;
		if (!at)
			totals.rounds_written++;
		totals.last_wall_ns = wall_ns;
		at += part;
	} while (at < n);
	spin_unlock_irqrestore(&stream_lock, f);
}

void monitor_stream_process(int32_t pid, const char *name)
{
	irqflags_t f = spin_lock_irqsave(&stream_lock);
	struct monitor_rec_process *r = announce_record(PROCESS_KEY | (uint32_t)pid,
							MONITOR_REC_PROCESS, sizeof(*r));
	if (r) {
		r->pid = pid;
		strlcpy(r->name, name, sizeof(r->name));
	}
	spin_unlock_irqrestore(&stream_lock, f);
}
