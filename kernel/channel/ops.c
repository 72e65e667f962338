// SPDX-License-Identifier: BSD-2-Clause
/*
 * The requests the control channel serves (the ops of scion/chan_proto.h),
 * one handler each, run by the channel thread one at a time. A handler
 * answers with exactly one RESPONSE (DATA frames may come before it).
 * SHELL runs a shell command with the thread's printk output captured
 * into the response instead of the console. The ops that report state
 * in structured records are query.c's.
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
#include <scion/monitor.h>
#include <scion/proc.h>
#include <arch/cpu.h>
#include "channel_internal.h"

#define CAPTURE_BYTES   65536
#define CUT_NOTE_BYTES  64	/* kept free for the note that output was cut */
#define COMMAND_MAX     512
#define BULK_CHUNK      4096
#define BULK_STREAM     0

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
	char name[48], err[160], line[GRAFT_LOAD_LINE];
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
	size_t n = graft_load_line(line, sizeof(line), name, g, err);
	if (g)
		printk("%s\n", line);	/* the console sees what the channel loaded */
	line[n++] = '\n';
	channel_respond(seq, g ? 0 : -EINVAL, line, n);
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
	static struct {
		struct chan_data_header head;	/* stream 0 */
		uint8_t bytes[BULK_CHUNK];
	} chunk;
	struct chan_bulk_request req;

	if (len != sizeof(req)) {
		channel_error(seq, -EINVAL, "bulk: give a struct chan_bulk_request (%zu bytes: the "
			      "byte count), not %u bytes", sizeof(req), len);
		return -EINVAL;
	}
	memcpy(&req, body, sizeof(req));
	chan_wire_from_le(CHAN_WIRE(chan_bulk_request), &req, 1);
	for (size_t i = 0; i < BULK_CHUNK; i++)
		chunk.bytes[i] = (uint8_t)i;
	chunk.head.stream = BULK_STREAM;
	chan_wire_to_le(CHAN_WIRE(chan_data_header), &chunk.head, 1);
	uint64_t start = arch_cycles();
	for (uint32_t sent = 0; sent < req.bytes;) {
		uint32_t n = req.bytes - sent < BULK_CHUNK ? req.bytes - sent : BULK_CHUNK;
		channel_send(CHAN_DATA, seq, &chunk, sizeof(chunk.head) + n, NULL, 0);
		sent += n;
	}
	struct chan_bulk_reply reply = { .cycles = arch_cycles() - start };
	chan_wire_to_le(CHAN_WIRE(chan_bulk_reply), &reply, 1);
	channel_respond(seq, 0, &reply, sizeof(reply));
	return 0;
}

/* The channel's counters as "name value" lines: `channel` (the STATS op has them as records). */
static void print_stats(void)
{
	struct chan_channel_stats s;

	channel_get_stats(&s);
	printk("frames_accepted %llu\nframes_rejected %llu\ngarbage_bytes %llu\n",
	       (unsigned long long)s.frames_accepted, (unsigned long long)s.frames_rejected,
	       (unsigned long long)s.garbage_bytes);
	for (int r = CHAN_REJECT_NONE + 1; r < CHAN_REJECT_KINDS; r++) {
		char name[32];
		size_t k;
		for (k = 0; chan_reject_name(r)[k] && k < sizeof(name) - 1; k++)
			name[k] = chan_reject_name(r)[k] == ' ' ? '_' : chan_reject_name(r)[k];
		name[k] = '\0';
		printk("rejected_%s %llu\n", name, (unsigned long long)s.rejected[r]);
	}
	printk("rx_bytes %llu\ntx_bytes %llu\nframes_sent %llu\nerrors_sent %llu\n",
	       (unsigned long long)s.rx_bytes, (unsigned long long)s.tx_bytes,
	       (unsigned long long)s.frames_sent, (unsigned long long)s.errors_sent);
	printk("requests %llu\nrequests_failed %llu\nhellos %llu\nversion_mismatches %llu\n"
	       "rx_stalls %llu\n", (unsigned long long)s.requests,
	       (unsigned long long)s.requests_failed, (unsigned long long)s.hellos,
	       (unsigned long long)s.version_mismatches, (unsigned long long)s.rx_stalls);
	printk("rx_ring_used %u\nrx_held %u\nparser_state %u\n", s.rx_ring_used, s.rx_held,
	       s.parser_state);
}

/*
 * `channel held CMD...`: CMD with the channel held (hold.c), so that a
 * measurement it makes counts no instruction of the channel's threads;
 * the benchmark tools run their workloads this way over the channel
 * itself (from the channel thread, which then runs CMD and is not in
 * the way; the output thread sleeps until CMD returns).
 */
static int run_held(int argc, char **argv)
{
	bool held = channel_hold();
	int status = shell_run(argc, argv);
	if (held)
		channel_release();
	return status;
}

/*
 * Shell: `channel` prints the counters (read unlocked: a snapshot in
 * motion), `channel events` the recent events, `channel event TEXT`
 * posts a marker event, `channel streams` the sources and open streams,
 * `channel held CMD` runs CMD with the channel held.
 */
static int cmd_channel(int argc, char **argv)
{
	if (argc >= 3 && !strcmp(argv[1], "held"))
		return run_held(argc - 2, argv + 2);
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
		printk("channel: usage: channel [events | event TEXT | streams | held CMD...]\n");
		return -EINVAL;
	}
	if (!channel.present) {
		printk("channel: no control channel (boot QEMU with a second serial port on a socket)\n");
		return -ENODEV;
	}
	print_stats();
	return 0;
}
SHELL_COMMAND(channel, "[events | event TEXT | streams | held CMD...]",
	      "the control channel's counters, its recent events, a marker event, its streams; "
	      "CMD with its threads asleep", cmd_channel);

typedef int (*op_fn)(uint32_t seq, const uint8_t *body, uint32_t len);

static const struct {
	const char *name;
	op_fn fn;
} ops[CHAN_OP_LIMIT] = {
	[CHAN_OP_STATUS] = { "status", channel_op_status },
	[CHAN_OP_SHELL] = { "shell", op_shell },
	[CHAN_OP_GRAFT_LOAD] = { "graft-load", op_graft_load },
	[CHAN_OP_ECHO] = { "echo", op_echo },
	[CHAN_OP_BULK] = { "bulk", op_bulk },
	[CHAN_OP_STATS] = { "stats", channel_op_stats },
	[CHAN_OP_STREAM_OPEN] = { "stream-open", channel_stream_open },
	[CHAN_OP_STREAM_CLOSE] = { "stream-close", channel_stream_close },
	[CHAN_OP_TRACE_START] = { "trace-start", trace_start_request },
	[CHAN_OP_REC_PUT] = { "rec-put", record_put_request },
	[CHAN_OP_REC_GET] = { "rec-get", record_get_request },
	[CHAN_OP_GRAFT_LOAD_TRUSTED] = { "graft-load-trusted", op_graft_load_trusted },
	[CHAN_OP_SYMBOLIZE] = { "symbolize", symbolize_request },
	[CHAN_OP_PROBE_LIST] = { "probe-list", channel_op_probe_list },
	[CHAN_OP_GRAFT_LIST] = { "graft-list", channel_op_graft_list },
	[CHAN_OP_METRICS] = { "metrics", channel_op_metrics },
	[CHAN_OP_EVENTS] = { "events", channel_events_request },
	[CHAN_OP_MONITOR] = { "monitor", monitor_ctl_request },
	[CHAN_OP_PROFILE_CONFIG] = { "profile-config", monitor_profile_config_request },
	[CHAN_OP_EXEC] = { "exec", proc_exec_request },
	[CHAN_OP_EXEC_RESUME] = { "exec-resume", proc_exec_resume_request },
	[CHAN_OP_SIGNAL] = { "signal", proc_signal_request },
	[CHAN_OP_METRIC_ADD] = { "metric-add", channel_op_metric_add },
	[CHAN_OP_METRIC_REMOVE] = { "metric-remove", channel_op_metric_remove },
	[CHAN_OP_ADAPT_DECISIONS] = { "adapt-decisions", channel_op_adapt_decisions },
	[CHAN_OP_ADAPT_ROWS] = { "adapt-rows", channel_op_adapt_rows },
	[CHAN_OP_TRACE_ANON] = { "trace-anon", trace_anon_request },
	[CHAN_OP_COVERAGE_START] = { "coverage-start", coverage_start_request },
	[CHAN_OP_COVERAGE_STOP] = { "coverage-stop", coverage_stop_request },
	[CHAN_OP_COVERAGE_BLOCKS] = { "coverage-blocks", coverage_blocks_request },
	[CHAN_OP_CODEADAPT_LOAD] = { "codeadapt-load", codeadapt_load_request },
	[CHAN_OP_CODEADAPT_LIST] = { "codeadapt-list", codeadapt_list_request },
	[CHAN_OP_CODEADAPT_REMOVE] = { "codeadapt-remove", codeadapt_remove_request },
	[CHAN_OP_CODEADAPT_OUTLINE] = { "codeadapt-outline", codeadapt_outline_request },
};

void channel_handle_request(uint32_t seq, const uint8_t *payload, uint32_t length)
{
	struct chan_request_header head;

	channel.counters.requests++;
	if (length < sizeof(head)) {
		channel.counters.requests_failed++;
		channel_error(seq, -EINVAL, "request of %u bytes: shorter than its %zu-byte op header",
			      length, sizeof(head));
		return;
	}
	memcpy(&head, payload, sizeof(head));
	chan_wire_from_le(CHAN_WIRE(chan_request_header), &head, 1);
	if (head.op >= CHAN_OP_LIMIT || !ops[head.op].fn) {
		channel.counters.requests_failed++;
		channel_error(seq, -ENOSYS, "unknown op %u", head.op);
		return;
	}
	if (ops[head.op].fn(seq, payload + sizeof(head), length - (uint32_t)sizeof(head)) < 0)
		channel.counters.requests_failed++;
}
