// SPDX-License-Identifier: BSD-2-Clause
/*
 * Streams of bulk data to the host, and the output thread that sends
 * them and the kernel's events. A stream joins a source (a linker-table
 * entry, scion/channel.h) to a per-CPU buffer set; every switch
 * interval the output thread switches the set's buffers and sends each
 * CPU's records, with the drops of the period, as one DATA frame. The
 * writers (probe context) never wait for the channel: when the host
 * reads slower than they write, their records are dropped and counted.
 *
 * A HELLO starts a new session and closes the previous session's
 * streams (one host client at a time holds the channel).
 *
 * Lock order: streams_lock -> stream.drain_lock -> channel.tx_lock.
 */
#include <scion/channel.h>
#include <scion/chan_proto.h>
#include <scion/tbuf.h>
#include <scion/thread.h>
#include <scion/mutex.h>
#include <scion/wait.h>
#include <scion/clock.h>
#include <scion/format.h>
#include <scion/string.h>
#include <scion/printk.h>
#include <scion/errno.h>
#include "channel_internal.h"

#define EVENT_POLL_MS     100	/* events posted under a spinlock wake nobody */
#define STREAM_ARGS_MAX   256

LINKER_TABLE_DECLARE(struct chan_stream_source, stream_sources);


struct stream {
	uint32_t id;				/* streams_lock: 0 while the slot is free */
	bool closing;				/* streams_lock: the output thread keeps off */
	uint64_t due;				/* streams_lock: tick of the next switch */
	const struct chan_stream_source *source;	/* set at open */
	void *priv;				/* the source's, set at open */
	struct tbuf_set *bufs;			/* set at open */
	uint32_t switch_ms;			/* set at open */
	struct mutex drain_lock;		/* one drain at a time */
	struct chan_stream_totals sent;		/* drain_lock */
};

static struct mutex streams_lock = MUTEX_INIT(streams_lock, "channel-streams");
static struct stream streams[CHANNEL_STREAMS];	/* streams_lock */
static uint32_t last_stream_id;			/* streams_lock */
static struct waitq output_wq = WAITQ_INIT(output_wq, "channel-output");
static bool output_parked;			/* output_wq.lock: asleep while held */

void channel_output_kick(void)
{
	waitq_wake_all(&output_wq);
}

void channel_wake_output(void)
{
	if (!READ_ONCE(channel.held))	/* a held channel's output thread stays asleep */
		channel_output_kick();
}

bool channel_output_parked(void)
{
	irqflags_t f = spin_lock_irqsave(&output_wq.lock);
	bool parked = output_parked;
	spin_unlock_irqrestore(&output_wq.lock, f);
	return parked;
}

/* While the channel is held (hold.c), sleep with no timeout until it is released. */
static void park_while_held(void)
{
	irqflags_t f = spin_lock_irqsave(&output_wq.lock);
	while (READ_ONCE(channel.held)) {
		output_parked = true;
		waitq_sleep(&output_wq, 0);
		output_parked = false;
	}
	spin_unlock_irqrestore(&output_wq.lock, f);
}

/* Where a source's drain sends its own chunks: the stream being drained. */
struct chan_stream_sink {
	struct stream *stream;
};

/* One DATA frame on s. Caller holds s->drain_lock. */
static void send_chunk(struct stream *s, uint32_t cpu_field, uint32_t records, uint64_t drops,
		       const void *data, size_t bytes)
{
	/* On the wire the chunk header follows the 4-byte stream id unaligned. */
	struct {
		struct chan_data_header data;
		struct chan_chunk_header chunk;
	} __packed head = { { s->id }, { cpu_field, records, drops } };

	chan_wire_to_le(CHAN_WIRE(chan_data_header), (uint8_t *)&head, 1);
	chan_wire_to_le(CHAN_WIRE(chan_chunk_header), (uint8_t *)&head + sizeof(head.data), 1);

	channel_send(CHAN_DATA, 0, &head, sizeof(head), data, bytes);
	s->sent.bytes += bytes;
	s->sent.frames++;
}

void chan_stream_send(struct chan_stream_sink *sink, uint32_t cpu_field, uint32_t records,
		      uint64_t drops, const void *data, size_t bytes)
{
	send_chunk(sink->stream, cpu_field, records, drops, data,
		   bytes > CHANNEL_CHUNK_MAX ? CHANNEL_CHUNK_MAX : bytes);
}

/*
 * Switch s's buffers and send every CPU's part that holds records or
 * drops, then whatever the source adds. Caller holds s->drain_lock.
 */
static void drain(struct stream *s)
{
	tbuf_switch(s->bufs);
	s->sent.switches++;
	for (unsigned cpu = 0; cpu < s->bufs->ncpus; cpu++) {
		uint32_t bytes;
		uint64_t records, drops;
		const uint8_t *data = tbuf_taken(s->bufs, cpu, &bytes, &records, &drops);
		if (!bytes && !drops)
			continue;
		/* The taken buffer is this consumer's until the next switch: turned in place. */
		if (CHAN_WIRE_SWAPS && s->source->to_wire && bytes)
			s->source->to_wire(s->priv, (uint8_t *)data, bytes);
		send_chunk(s, cpu, (uint32_t)records, drops, data, bytes);
		s->sent.records += records;
		s->sent.drops += drops;
	}
	if (s->source->drain) {
		struct chan_stream_sink sink = { s };
		s->source->drain(s->priv, &sink);
	}
}

/*
 * The output thread: sends posted events, and drains each stream when
 * its switch interval has passed; while the channel is held, nothing.
 */
static void output_thread(void *arg)
{
	static char line[CHANNEL_EVENT_LINE];
	(void)arg;

	for (;;) {
		size_t len;
		park_while_held();
		while ((len = channel_event_take(line)))
			channel_send(CHAN_EVENT, 0, line, len, NULL, 0);

		uint64_t now = clock_ticks(), next = now + ms_to_ticks(EVENT_POLL_MS);
		struct stream *due = NULL;
		mutex_lock(&streams_lock);
		for (int i = 0; i < CHANNEL_STREAMS; i++) {
			struct stream *s = &streams[i];
			if (!s->id || s->closing)
				continue;
			if (!due && s->due <= now) {
				due = s;
				s->due = now + ms_to_ticks(s->switch_ms);
			}
			if (s->due < next)
				next = s->due;
		}
		if (due)
			mutex_lock(&due->drain_lock);
		mutex_unlock(&streams_lock);
		if (due) {
			drain(due);
			mutex_unlock(&due->drain_lock);
			continue;	/* another stream may be due as well */
		}

		irqflags_t f = spin_lock_irqsave(&output_wq.lock);
		if (!channel_event_pending() && clock_ticks() < next && !READ_ONCE(channel.held))
			waitq_sleep(&output_wq, next - clock_ticks());
		spin_unlock_irqrestore(&output_wq.lock, f);
	}
}

int channel_output_start(void)
{
	for (int i = 0; i < CHANNEL_STREAMS; i++)
		streams[i].drain_lock = (struct mutex)MUTEX_INIT(streams[i].drain_lock, "channel-stream");
	return thread_spawn("channel-out", output_thread, NULL, -1);
}

static const struct chan_stream_source *find_source(const char *name, size_t len)
{
	LINKER_TABLE_FOREACH(struct chan_stream_source, stream_sources, src)
		if (strlen(src->name) == len && !memcmp(src->name, name, len))
			return src;
	return NULL;
}

/* "a b c" -> the first word and the rest; NULL when there is no word. */
static const char *next_word(const char *p, const char **word, size_t *len)
{
	while (*p == ' ')
		p++;
	if (!*p)
		return NULL;
	*word = p;
	while (*p && *p != ' ')
		p++;
	*len = (size_t)(p - *word);
	return p;
}

/* A word of the request (not NUL-terminated) as a number below 2^32. */
static bool parse_u32(const char *word, size_t len, uint32_t *out)
{
	char text[16];
	uint64_t v;
	if (len >= sizeof(text))
		return false;
	memcpy(text, word, len);
	text[len] = '\0';
	if (parse_u64(text, &v, false) || v > UINT32_MAX)
		return false;
	*out = (uint32_t)v;
	return true;
}

int channel_stream_open(uint32_t seq, const uint8_t *body, uint32_t len)
{
	char text[STREAM_ARGS_MAX], why[160];
	const char *name, *size_word, *ms_word, *p;
	size_t name_len, size_len, ms_len;
	uint32_t bufsize, switch_ms;

	if (!len || len >= sizeof(text) || strnlen((const char *)body, len) != len) {
		channel_error(seq, -EINVAL, "stream open: give 'SOURCE BUFSIZE SWITCH_MS [ARGS]' "
			      "in 1 to %zu bytes of text", sizeof(text) - 1);
		return -EINVAL;
	}
	memcpy(text, body, len);
	text[len] = '\0';
	if (!(p = next_word(text, &name, &name_len)) || !(p = next_word(p, &size_word, &size_len)) ||
	    !(p = next_word(p, &ms_word, &ms_len))) {
		channel_error(seq, -EINVAL, "stream open: give 'SOURCE BUFSIZE SWITCH_MS [ARGS]'");
		return -EINVAL;
	}
	while (*p == ' ')
		p++;
	const struct chan_stream_source *src = find_source(name, name_len);
	if (!src) {
		channel_error(seq, -ENOENT, "stream open: no source '%.*s' (`channel streams` "
			      "lists them)", (int)name_len, name);
		return -ENOENT;
	}
	if (!parse_u32(size_word, size_len, &bufsize) || bufsize < TBUF_MIN_SIZE ||
	    bufsize > CHAN_STREAM_MAX_BUF || bufsize % TBUF_ALIGN) {
		channel_error(seq, -EINVAL, "stream open: buffer size '%.*s': give %u to %u bytes, "
			      "a multiple of %u", (int)size_len, size_word, TBUF_MIN_SIZE,
			      CHAN_STREAM_MAX_BUF, TBUF_ALIGN);
		return -EINVAL;
	}
	if (!parse_u32(ms_word, ms_len, &switch_ms) || switch_ms < CHAN_STREAM_SWITCH_MIN_MS ||
	    switch_ms > CHAN_STREAM_SWITCH_MAX_MS) {
		channel_error(seq, -EINVAL, "stream open: switch interval '%.*s': give %u to %u ms",
			      (int)ms_len, ms_word, CHAN_STREAM_SWITCH_MIN_MS, CHAN_STREAM_SWITCH_MAX_MS);
		return -EINVAL;
	}

	uint32_t id;
	int err = channel_stream_start(src, NULL, bufsize, switch_ms, p, &id, why, sizeof(why));
	if (err) {
		channel_error(seq, err, "stream open: %s", why);
		return err;
	}
	struct chan_stream_open_reply reply = { .stream = id, .cpus = cpu_count(), .bufsize = bufsize };
	chan_wire_to_le(CHAN_WIRE(chan_stream_open_reply), &reply, 1);
	channel_respond(seq, 0, &reply, sizeof(reply));
	return 0;
}

int channel_stream_start(const struct chan_stream_source *src, void *priv, uint32_t bufsize,
			 uint32_t switch_ms, const char *args, uint32_t *id, char *why,
			 size_t whylen)
{
	if (bufsize < TBUF_MIN_SIZE || bufsize > CHAN_STREAM_MAX_BUF || bufsize % TBUF_ALIGN) {
		snprintf(why, whylen, "buffer size %u: give %u to %u bytes, a multiple of %u",
			 bufsize, TBUF_MIN_SIZE, CHAN_STREAM_MAX_BUF, TBUF_ALIGN);
		return -EINVAL;
	}
	if (switch_ms < CHAN_STREAM_SWITCH_MIN_MS || switch_ms > CHAN_STREAM_SWITCH_MAX_MS) {
		snprintf(why, whylen, "switch interval %u ms: give %u to %u ms", switch_ms,
			 CHAN_STREAM_SWITCH_MIN_MS, CHAN_STREAM_SWITCH_MAX_MS);
		return -EINVAL;
	}
	mutex_lock(&streams_lock);
	struct stream *s = NULL;
	for (int i = 0; i < CHANNEL_STREAMS && !s; i++)
		if (!streams[i].id)
			s = &streams[i];
	if (!s) {
		mutex_unlock(&streams_lock);
		snprintf(why, whylen, "%d streams are open already; close one", CHANNEL_STREAMS);
		return -EBUSY;
	}
	struct tbuf_set *bufs = tbuf_create(bufsize);
	if (!bufs) {
		mutex_unlock(&streams_lock);
		snprintf(why, whylen, "no memory for %u CPUs x 2 x %u bytes", cpu_count(), bufsize);
		return -ENOMEM;
	}
	why[0] = '\0';
	int err = src->open(bufs, args, &priv, why, whylen);
	if (err) {
		mutex_unlock(&streams_lock);
		tbuf_destroy(bufs);
		char inner[160];
		strlcpy(inner, why[0] ? why : errno_name(err), sizeof(inner));
		snprintf(why, whylen, "%s: %s", src->name, inner);
		return err;
	}
	s->source = src;
	s->priv = priv;
	s->bufs = bufs;
	s->switch_ms = switch_ms;
	memset(&s->sent, 0, sizeof(s->sent));
	s->closing = false;
	s->due = clock_ticks() + ms_to_ticks(switch_ms);
	s->id = ++last_stream_id;
	*id = s->id;
	mutex_unlock(&streams_lock);
	channel_wake_output();
	return 0;
}

/*
 * Close stream s, sending everything its source wrote:
 *   1. mark it closing, so the output thread starts no drain of it;
 *   2. close the source: from then on no CPU writes its buffers;
 *   3. take drain_lock (a drain in progress ends first) and drain once
 *      more: the records written since the last switch go out, then
 *      the source's own last chunks;
 *   4. release the source, free the buffers and the slot.
 * The totals (what was sent over the stream's life) go to *totals.
 */
static void stream_close(struct stream *s, struct chan_stream_totals *totals)
{
	mutex_lock(&streams_lock);
	s->closing = true;
	mutex_unlock(&streams_lock);
	s->source->close(s->priv);
	mutex_lock(&s->drain_lock);
	drain(s);
	*totals = s->sent;
	mutex_unlock(&s->drain_lock);
	if (s->source->release)
		s->source->release(s->priv);
	tbuf_destroy(s->bufs);
	mutex_lock(&streams_lock);
	s->bufs = NULL;
	s->id = 0;
	mutex_unlock(&streams_lock);
}

int channel_stream_close(uint32_t seq, const uint8_t *body, uint32_t len)
{
	struct chan_stream_totals totals;
	struct chan_stream_close_request req;

	if (len != sizeof(req)) {
		channel_error(seq, -EINVAL, "stream close: give a struct chan_stream_close_request "
			      "(%zu bytes: the stream id), not %u bytes", sizeof(req), len);
		return -EINVAL;
	}
	memcpy(&req, body, sizeof(req));
	chan_wire_from_le(CHAN_WIRE(chan_stream_close_request), &req, 1);
	uint32_t id = req.stream;
	struct stream *s = NULL;
	mutex_lock(&streams_lock);
	for (int i = 0; i < CHANNEL_STREAMS && !s; i++)
		if (id && streams[i].id == id && !streams[i].closing)
			s = &streams[i];
	mutex_unlock(&streams_lock);
	if (!s) {
		channel_error(seq, -ENOENT, "stream close: no open stream %u", id);
		return -ENOENT;
	}
	stream_close(s, &totals);
	chan_wire_to_le(CHAN_WIRE(chan_stream_totals), &totals, 1);
	channel_respond(seq, 0, &totals, sizeof(totals));
	return 0;
}

void channel_streams_close_all(void)
{
	struct chan_stream_totals totals;
	for (int i = 0; i < CHANNEL_STREAMS; i++) {
		mutex_lock(&streams_lock);
		bool open = streams[i].id && !streams[i].closing;
		mutex_unlock(&streams_lock);
		if (open)
			stream_close(&streams[i], &totals);
	}
}

void channel_streams_print(void)
{
	printk("sources:");
	LINKER_TABLE_FOREACH(struct chan_stream_source, stream_sources, src)
		printk(" %s", src->name);
	printk("\n");
	mutex_lock(&streams_lock);
	unsigned open = 0;
	for (int i = 0; i < CHANNEL_STREAMS; i++) {
		struct stream *s = &streams[i];
		if (!s->id)
			continue;
		if (!open++)
			printk("%-4s %-10s %-9s %-9s %s\n", "ID", "SOURCE", "BUFSIZE", "SWITCH", "STATE");
		printk("%-4u %-10s %-9u %-6u ms %s\n", s->id, s->source->name, s->bufs->size,
		       s->switch_ms, s->closing ? "closing" : "open");
	}
	mutex_unlock(&streams_lock);
	if (!open)
		printk("(no stream open)\n");
}
