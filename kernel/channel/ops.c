// SPDX-License-Identifier: BSD-2-Clause
/*
 * The requests the control channel serves (the ops of scion/chan_proto.h),
 * one handler each, run by the channel thread one at a time. A handler
 * answers with exactly one RESPONSE (DATA frames may come before it).
 * SHELL runs a shell command with the thread's printk output captured
 * into the response instead of the console.
 */
#include <scion/shell.h>
#include <scion/printk.h>
#include <scion/format.h>
#include <scion/string.h>
#include <scion/errno.h>
#include <scion/mm.h>
#include <scion/clock.h>
#include <scion/cpu.h>
#include <scion/graft.h>
#include <scion/probe.h>
#include <scion/trace.h>
#include <scion/record.h>
#include <scion/symtab.h>
#include <scion/version.h>
#include <scion/channel.h>
#include <arch/cpu.h>
#include "channel_internal.h"

#define CAPTURE_BYTES   65536
#define CUT_NOTE_BYTES  64	/* kept free for the note that output was cut */
#define COMMAND_MAX     512
#define BULK_CHUNK      4096
#define BULK_STREAM     0
#define TEXT_BYTES      2048
#define KIB_PER_PAGE    4

/* A text response built up line by line. */
struct text {
	char buf[TEXT_BYTES];
	size_t n;
};

static __printf(2, 3) void text_add(struct text *t, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(t->buf + t->n, sizeof(t->buf) - t->n, fmt, ap);
	va_end(ap);
	t->n += (size_t)n < sizeof(t->buf) - t->n ? (size_t)n : sizeof(t->buf) - t->n - 1;
}

static void count_graft(struct graft *g, void *arg)
{
	unsigned *counts = arg;
	counts[0]++;
	counts[1] += g->installed;
}

static int op_status(uint32_t seq, const uint8_t *body, uint32_t len)
{
	static struct text t;
	struct pmm_stats mem;
	struct probe_stats probes;
	unsigned grafts[2] = { 0, 0 };

	(void)body;
	(void)len;
	t.n = 0;
	pmm_get_stats(&mem);
	probe_get_stats(&probes);
	graft_foreach(count_graft, grafts);
	text_add(&t, "version: %s\nbuild: %s\n", scion_version, scion_build_info);
	text_add(&t, "uptime_ms: %llu\ncpus: %u\n",
		 (unsigned long long)(clock_ticks() * 1000 / HZ), cpu_count());
	text_add(&t, "memory_kib: %llu\nmemory_free_kib: %llu\n",
		 (unsigned long long)mem.managed_pages * KIB_PER_PAGE,
		 (unsigned long long)mem.free_pages * KIB_PER_PAGE);
	text_add(&t, "grafts_loaded: %u\ngrafts_installed: %u\n", grafts[0], grafts[1]);
	text_add(&t, "probes: %u\nprobe_sites: %u\n", probes.probes, probes.sites);
	text_add(&t, "channel_frames_accepted: %llu\nchannel_frames_rejected: %llu\n",
		 (unsigned long long)channel.parser.accepted,
		 (unsigned long long)channel.parser.rejected);
	channel_respond(seq, 0, t.buf, t.n);
	return 0;
}

struct capture {
	struct output_sink sink;
	char *buf;
	size_t n;
	bool cut;
};

static void capture_write(struct output_sink *sink, const char *text, size_t n)
{
	struct capture *c = container_of(sink, struct capture, sink);
	size_t room = CAPTURE_BYTES - CUT_NOTE_BYTES - c->n;
	if (n > room) {
		n = room;
		c->cut = true;
	}
	memcpy(c->buf + c->n, text, n);
	c->n += n;
}

static int op_shell(uint32_t seq, const uint8_t *body, uint32_t len)
{
	char line[COMMAND_MAX];
	struct capture c = { .sink = { capture_write } };

	if (len == 0 || len >= sizeof(line)) {
		channel_respond(seq, -EINVAL, "shell: give a command of 1 to 511 bytes\n", 40);
		return -EINVAL;
	}
	memcpy(line, body, len);
	line[len] = '\0';
	if (strlen(line) != len) {
		static const char nul[] = "shell: the command contains a NUL byte\n";
		channel_respond(seq, -EINVAL, nul, sizeof(nul) - 1);
		return -EINVAL;
	}
	c.buf = kmalloc(CAPTURE_BYTES);
	if (!c.buf) {
		channel_respond(seq, -ENOMEM, NULL, 0);
		return -ENOMEM;
	}
	thread_set_output(&c.sink);
	int status = shell_execute(line);
	thread_set_output(NULL);
	if (status == -ENOENT && c.n == 0)
		c.n = (size_t)snprintf(c.buf, CAPTURE_BYTES, "unknown command '%s'\n", line);
	if (c.cut)
		c.n += (size_t)snprintf(c.buf + c.n, CUT_NOTE_BYTES, "\n[output cut at %u bytes]\n",
					CAPTURE_BYTES - CUT_NOTE_BYTES);
	channel_respond(seq, status, c.buf, c.n);
	kfree(c.buf);
	return status;
}

static int graft_load_request(uint32_t seq, const uint8_t *body, uint32_t len,
			      enum graft_load_mode mode)
{
	char name[48], err[160], line[224];
	size_t name_len = 0;

	while (name_len < len && name_len < sizeof(name) && body[name_len])
		name_len++;
	if (name_len == 0 || name_len == len || name_len == sizeof(name)) {
		static const char msg[] = "graft load: give a file name of 1 to 47 bytes, a NUL, then the graft\n";
		channel_respond(seq, -EINVAL, msg, sizeof(msg) - 1);
		return -EINVAL;
	}
	memcpy(name, body, name_len);
	name[name_len] = '\0';
	const uint8_t *image = body + name_len + 1;
	size_t size = len - name_len - 1;
	struct graft *g = graft_load(image, size, name, mode, err, sizeof(err));
	int n;
	if (g)
		n = snprintf(line, sizeof(line), "graft: %s: loaded '%s' for %s (version %u%s)\n", name,
			     g->name, g->point->name, g->version, g->sandboxed ? "" : ", trusted");
	else
		n = snprintf(line, sizeof(line), "graft: %s: refused: %s\n", name, err);
	if (g)
		printk("%s", line);	/* the console sees what the channel loaded */
	channel_respond(seq, g ? 0 : -EINVAL, line, (size_t)n < sizeof(line) ? (size_t)n : sizeof(line) - 1);
	return g ? 0 : -EINVAL;
}

static int op_graft_load(uint32_t seq, const uint8_t *body, uint32_t len)
{
	return graft_load_request(seq, body, len, GRAFT_SANDBOXED);
}

static int op_graft_load_trusted(uint32_t seq, const uint8_t *body, uint32_t len)
{
	return graft_load_request(seq, body, len, GRAFT_TRUSTED);
}

static int op_echo(uint32_t seq, const uint8_t *body, uint32_t len)
{
	channel_respond(seq, 0, body, len);
	return 0;
}

static int op_bulk(uint32_t seq, const uint8_t *body, uint32_t len)
{
	static uint8_t chunk[CHAN_STATUS_BYTES + BULK_CHUNK];
	if (len != 4) {
		static const char msg[] = "bulk: give the byte count as a u32\n";
		channel_respond(seq, -EINVAL, msg, sizeof(msg) - 1);
		return -EINVAL;
	}
	uint32_t total = (uint32_t)chan_get_le(body, 4);
	for (size_t i = 0; i < BULK_CHUNK; i++)
		chunk[CHAN_STATUS_BYTES + i] = (uint8_t)i;
	memset(chunk, 0, CHAN_STATUS_BYTES);	/* stream 0 */
	uint64_t start = arch_cycles();
	for (uint32_t sent = 0; sent < total;) {
		uint32_t n = total - sent < BULK_CHUNK ? total - sent : BULK_CHUNK;
		channel_send(CHAN_DATA, seq, chunk, CHAN_STATUS_BYTES + n, NULL, 0);
		sent += n;
	}
	uint64_t cycles = arch_cycles() - start;
	uint8_t out[8];
	chan_put_le(out, cycles, sizeof(out));
	channel_respond(seq, 0, out, sizeof(out));
	return 0;
}

/* The channel's counters as "name value" lines (STATS op, `channel` command). */
static void stats_text(struct text *t)
{
	const struct chan_parser *p = &channel.parser;
	const struct channel_counters *c = &channel.counters;

	t->n = 0;
	text_add(t, "frames_accepted %llu\nframes_rejected %llu\ngarbage_bytes %llu\n",
		 (unsigned long long)p->accepted, (unsigned long long)p->rejected,
		 (unsigned long long)p->garbage_bytes);
	for (int r = CHAN_REJECT_NONE + 1; r < CHAN_REJECT_KINDS; r++) {
		char name[32];
		size_t k;
		for (k = 0; chan_reject_name(r)[k] && k < sizeof(name) - 1; k++)
			name[k] = chan_reject_name(r)[k] == ' ' ? '_' : chan_reject_name(r)[k];
		name[k] = '\0';
		text_add(t, "rejected_%s %llu\n", name, (unsigned long long)p->rejects[r]);
	}
	text_add(t, "rx_bytes %llu\ntx_bytes %llu\nframes_sent %llu\nerrors_sent %llu\n",
		 (unsigned long long)c->rx_bytes, (unsigned long long)c->tx_bytes,
		 (unsigned long long)c->frames_sent, (unsigned long long)c->errors_sent);
	text_add(t, "requests %llu\nrequests_failed %llu\nhellos %llu\nversion_mismatches %llu\n"
		 "rx_stalls %llu\n", (unsigned long long)c->requests,
		 (unsigned long long)c->requests_failed, (unsigned long long)c->hellos,
		 (unsigned long long)c->version_mismatches, (unsigned long long)c->rx_stalls);
	text_add(t, "rx_ring_used %u\nrx_held %d\nparser_state %d\n",
		 READ_ONCE(channel.ring_head) - READ_ONCE(channel.ring_tail),
		 READ_ONCE(channel.input_held), (int)channel.parser.state);
}

static int op_stats(uint32_t seq, const uint8_t *body, uint32_t len)
{
	static struct text t;

	(void)body;
	(void)len;
	stats_text(&t);
	channel_respond(seq, 0, t.buf, t.n);
	return 0;
}

/*
 * Shell: `channel` prints the counters (read unlocked: a snapshot in
 * motion), `channel events` the recent events, `channel event TEXT`
 * posts a marker event, `channel streams` the sources and open streams.
 */
static int cmd_channel(int argc, char **argv)
{
	static struct text t;

	if (argc == 2 && !strcmp(argv[1], "events"))
		return channel_events_print();
	if (argc >= 3 && !strcmp(argv[1], "event")) {
		char text[CHANNEL_EVENT_TEXT] = "";
		for (int i = 2; i < argc; i++) {
			if (i > 2)
				strlcat(text, " ", sizeof(text));
			strlcat(text, argv[i], sizeof(text));
		}
		channel_event("mark: %s", text);
		return 0;
	}
	if (argc == 2 && !strcmp(argv[1], "streams")) {
		channel_streams_print();
		return 0;
	}
	if (argc != 1) {
		printk("channel: usage: channel [events | event TEXT | streams]\n");
		return -EINVAL;
	}
	if (!channel.present) {
		printk("channel: no control channel (boot QEMU with a second serial port on a socket)\n");
		return -ENODEV;
	}
	stats_text(&t);
	printk("%s", t.buf);
	return 0;
}
SHELL_COMMAND(channel, "[events | event TEXT | streams]",
	      "the control channel's counters, its recent events, a marker event, its streams",
	      cmd_channel);

typedef int (*op_fn)(uint32_t seq, const uint8_t *body, uint32_t len);

static const struct {
	const char *name;
	op_fn fn;
} ops[CHAN_OP_LIMIT] = {
	[CHAN_OP_STATUS] = { "status", op_status },
	[CHAN_OP_SHELL] = { "shell", op_shell },
	[CHAN_OP_GRAFT_LOAD] = { "graft-load", op_graft_load },
	[CHAN_OP_ECHO] = { "echo", op_echo },
	[CHAN_OP_BULK] = { "bulk", op_bulk },
	[CHAN_OP_STATS] = { "stats", op_stats },
	[CHAN_OP_STREAM_OPEN] = { "stream-open", channel_stream_open },
	[CHAN_OP_STREAM_CLOSE] = { "stream-close", channel_stream_close },
	[CHAN_OP_TRACE_START] = { "trace-start", trace_start_request },
	[CHAN_OP_REC_PUT] = { "rec-put", record_put_request },
	[CHAN_OP_REC_GET] = { "rec-get", record_get_request },
	[CHAN_OP_GRAFT_LOAD_TRUSTED] = { "graft-load-trusted", op_graft_load_trusted },
	[CHAN_OP_SYMBOLIZE] = { "symbolize", symbolize_request },
};

void channel_handle_request(uint32_t seq, const uint8_t *payload, uint32_t length)
{
	channel.counters.requests++;
	if (length < CHAN_REQUEST_HEADER_BYTES) {
		channel.counters.requests_failed++;
		channel_error(seq, -EINVAL, "request of %u bytes: shorter than its %u-byte op header",
			      length, CHAN_REQUEST_HEADER_BYTES);
		return;
	}
	uint16_t op = (uint16_t)chan_get_le(payload, 2);
	if (op >= CHAN_OP_LIMIT || !ops[op].fn) {
		channel.counters.requests_failed++;
		channel_error(seq, -ENOSYS, "unknown op %u", op);
		return;
	}
	if (ops[op].fn(seq, payload + CHAN_REQUEST_HEADER_BYTES,
		       length - CHAN_REQUEST_HEADER_BYTES) < 0)
		channel.counters.requests_failed++;
}
