// SPDX-License-Identifier: BSD-2-Clause
/*
 * `scion trace`: a trace session bound to the control channel. A
 * TRACE_START request creates the session (scion/trace.h, step 1) and
 * opens a stream (the "trace" source) that carries its data to the host;
 * the session lives exactly as long as that stream:
 *
 *   1. TRACE_START: the session is created; the reply gives the stream,
 *      the CPUs and each EPID's clause and probe;
 *   2. the stream opens: its buffers become the session's principal
 *      buffers and the session starts;
 *   3. every switch interval the stream sends the principal buffers,
 *      then the drain hook the aggregation snapshots and a status chunk;
 *   4. STREAM_CLOSE (or a new HELLO): the session stops, the last drain
 *      sends what is left (with bufpolicy=ring, the rings' records
 *      first), with ENDED set in the status;
 *   5. the stream's release destroys the session.
 *
 * An anonymous session (kernel/trace/anon.c) started at boot on its own
 * buffers; claiming it (TRACE_ANON) opens a "trace-anon" stream that
 * takes its records from those buffers at each drain (the stream's own
 * stay empty) and otherwise lives as steps 3 to 5 say.
 */
#include <scion/channel.h>
#include <scion/chan_proto.h>
#include <scion/chan_wire.h>
#include <scion/dof.h>
#include <scion/errno.h>
#include <scion/format.h>
#include <scion/mm.h>
#include <scion/string.h>
#include <scion/trace.h>
#include <scion/cpu.h>
#include <scion/tbuf.h>

static int trace_open(struct tbuf_set *bufs, const char *args, void **priv, char *why,
		      size_t whylen)
{
	struct trace_session *s = *priv;
	(void)args;
	if (!s) {
		snprintf(why, whylen, "trace sessions start with a TRACE_START request (scion trace)");
		return -EINVAL;
	}
	return trace_session_start(s, bufs, why, whylen);
}

static void trace_close(void *priv)
{
	trace_session_stop(priv);
}

/*
 * One chunk of whole aggregation entries, turned to the wire's order
 * first (in place: the snapshot is this consumer's until the next switch,
 * and the entries were walked before they are turned).
 */
static void send_entries(struct trace_session *s, struct chan_stream_sink *sink, unsigned cpu,
			 uint8_t *entries, uint32_t bytes, uint32_t count)
{
	trace_session_aggregations_to_le(s, entries, bytes);
	chan_stream_send(sink, CHAN_CHUNK_AGG | cpu, count, 0, entries, bytes);
}

/* Send CPU cpu's aggregation snapshot in chunks of whole entries. */
static void send_aggregations(struct trace_session *s, struct chan_stream_sink *sink, unsigned cpu)
{
	uint32_t bytes;
	uint8_t *data = trace_session_aggregation_snapshot(s, cpu, &bytes);
	uint32_t start = 0, at = 0, entries = 0;
	while (at < bytes) {
		const struct dof_aggent *e = (const struct dof_aggent *)(data + at);
		uint32_t size = (uint32_t)sizeof(*e) + e->keybytes + e->valbytes;
		if (at + size - start > CHANNEL_CHUNK_MAX) {
			send_entries(s, sink, cpu, data + start, at - start, entries);
			start = at;
			entries = 0;
		}
		at += size;
		entries++;
	}
	if (at > start)
		send_entries(s, sink, cpu, data + start, at - start, entries);
}

struct ring_send {
	struct trace_session *session;
	struct chan_stream_sink *sink;
};

/* bufpolicy=ring: a CPU's kept records, sent as its principal buffer's are. */
static void send_ring_records(void *arg, unsigned cpu, uint32_t count, uint8_t *records,
			      uint32_t bytes)
{
	struct ring_send *r = arg;
	trace_session_records_to_le(r->session, records, bytes);
	chan_stream_send(r->sink, cpu, count, 0, records, bytes);
}

static void trace_drain(void *priv, struct chan_stream_sink *sink)
{
	struct trace_session *s = priv;
	struct ring_send ring = { s, sink };
	trace_session_send_rings(s, send_ring_records, &ring, CHANNEL_CHUNK_MAX);
	trace_session_switch_aggregations(s);
	for (unsigned cpu = 0; cpu < cpu_count() && cpu < MAX_CPUS; cpu++)
		send_aggregations(s, sink, cpu);
	struct dof_status st;
	trace_session_status(s, &st);
	chan_wire_to_le(CHAN_WIRE(dof_status), &st, 1);
	chan_stream_send(sink, CHAN_CHUNK_STATUS, 0, 0, &st, sizeof(st));
}

static void trace_release(void *priv)
{
	trace_session_destroy(priv);
}

/* A big-endian machine's records to the wire's order, as each CPU's chunk leaves. */
static void trace_to_wire(void *priv, uint8_t *records, uint32_t bytes)
{
	trace_session_records_to_le(priv, records, bytes);
}

CHAN_STREAM_SOURCE_WIRE(trace_source, "trace", "(opened by TRACE_START)", trace_open,
			trace_close, trace_drain, trace_release, trace_to_wire);

/* An anonymous session runs already, on its own buffers: the stream only carries them. */
static int anon_open(struct tbuf_set *bufs, const char *args, void **priv, char *why,
		     size_t whylen)
{
	(void)bufs;
	(void)args;
	if (!*priv) {
		snprintf(why, whylen, "the anonymous session is claimed with TRACE_ANON (scion "
			 "trace -a)");
		return -EINVAL;
	}
	return 0;
}

/* Runs of one CPU's taken records, sent as the stream sends a principal buffer's. */
struct taken_run {
	struct trace_session *session;
	struct chan_stream_sink *sink;
	unsigned cpu;
	uint8_t *start;
	uint32_t bytes, records;
};

static void flush_run(struct taken_run *run)
{
	if (!run->records)
		return;
	trace_session_records_to_le(run->session, run->start, run->bytes);
	chan_stream_send(run->sink, run->cpu, run->records, 0, run->start, run->bytes);
	run->records = run->bytes = 0;
}

static void take_record(void *arg, unsigned cpu, const struct dof_rechdr *r, uint32_t size)
{
	struct taken_run *run = arg;
	uint8_t *at = (uint8_t *)(uintptr_t)r;	/* the consumer's until the next switch */
	if (run->records && (cpu != run->cpu || at != run->start + run->bytes ||
			     run->bytes + size > CHANNEL_CHUNK_MAX))
		flush_run(run);
	if (!run->records) {
		run->cpu = cpu;
		run->start = at;
	}
	run->bytes += size;
	run->records++;
}

static void anon_drain(void *priv, struct chan_stream_sink *sink)
{
	struct taken_run run = { .session = priv, .sink = sink };
	uint64_t drops = trace_session_take_records(priv, take_record, &run);
	flush_run(&run);
	if (drops)	/* the records its own buffers could not take since the last drain */
		chan_stream_send(sink, 0, 0, drops, NULL, 0);
	trace_drain(priv, sink);
}

CHAN_STREAM_SOURCE_FULL(trace_anon_source, "trace-anon", "(opened by TRACE_ANON)", anon_open,
			trace_close, anon_drain, trace_release);

/*
 * The reply: struct chan_trace_start_reply, then each EPID's clause and
 * probe id, then extra (TRACE_ANON: the program's JSON) if any.
 */
static void reply_started(uint32_t seq, const struct trace_session *s, uint32_t stream,
			  const void *extra, size_t extra_len)
{
	uint32_t n = trace_session_necbs(s);
	size_t epids_end = sizeof(struct chan_trace_start_reply) +
			   (size_t)n * sizeof(struct chan_trace_epid);
	size_t reply_len = epids_end + extra_len;
	struct chan_trace_start_reply *reply = kmalloc(reply_len);
	if (!reply) {
		channel_error(seq, -ENOMEM, "trace start: stream %u is open but no memory for the "
			      "reply; close it", stream);
		return;
	}
	reply->stream = stream;
	reply->cpus = cpu_count();
	reply->nepids = n;
	for (uint32_t epid = 1; epid <= n; epid++)
		trace_session_ecb(s, epid, &reply->epids[epid - 1].clause,
				  &reply->epids[epid - 1].probe_id);
	chan_wire_to_le(CHAN_WIRE(chan_trace_epid), reply->epids, n);
	chan_wire_to_le(CHAN_WIRE(chan_trace_start_reply), reply, 1);
	if (extra_len)
		memcpy((uint8_t *)reply + epids_end, extra, extra_len);
	channel_respond(seq, 0, reply, reply_len);
	kfree(reply);
}

int trace_start_request(uint32_t seq, const uint8_t *body, uint32_t len)
{
	char why[192];
	struct trace_session *s;
	int err;

	struct chan_trace_start_request req;

	if (len < sizeof(req)) {
		channel_error(seq, -EINVAL, "trace start: give a struct chan_trace_start_request "
			      "(bufsize, switch_ms) and a trace object");
		return -EINVAL;
	}
	memcpy(&req, body, sizeof(req));
	chan_wire_from_le(CHAN_WIRE(chan_trace_start_request), &req, 1);
	uint32_t bufsize = req.bufsize, switch_ms = req.switch_ms;
	if ((err = trace_session_create(body + sizeof(req), len - (uint32_t)sizeof(req), &s, why,
					sizeof(why)))) {
		channel_error(seq, err, "trace start: %s", why);
		return err;
	}
	if (trace_session_notice(s))
		channel_event("%s", trace_session_notice(s));
	uint32_t stream;
	if ((err = channel_stream_start(&trace_source, s, bufsize ? bufsize : TRACE_DEFAULT_BUFSIZE,
					switch_ms, "", &stream, why, sizeof(why)))) {
		trace_session_destroy(s);
		channel_error(seq, err, "trace start: %s", why);
		return err;
	}
	/* From here the stream owns the session. */
	reply_started(seq, s, stream, NULL, 0);
	return 0;
}

int trace_stream_claim(uint32_t seq, struct trace_session *s, uint32_t switch_ms,
		       const void *json, uint32_t json_len, char *why, size_t whylen)
{
	uint32_t stream;
	int err = channel_stream_start(&trace_anon_source, s, TBUF_MIN_SIZE, switch_ms, "",
				       &stream, why, whylen);
	if (err)
		return err;
	/* From here the stream owns the session. */
	reply_started(seq, s, stream, json, json_len);
	return 0;
}
