/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * DTrace-style tracing (kernel/trace/): sessions running D clauses
 * compiled to DIF (a trace object, scion/dof.h) on probes. What the rest
 * of the kernel calls.
 *
 * A session's life, for any client (the control channel's `scion trace`
 * is one, kernel/trace/trace_stream.c; in-kernel monitors are others):
 *
 *   1. trace_session_create: load and check the object, match its probe
 *      descriptions, give every (clause, probe) pair an EPID, allocate
 *      its memory. No probe is enabled.
 *   2. trace_session_start: its principal buffers (the caller's, or its
 *      own), the probes enabled (WARMUP: they run nothing yet), BEGIN's
 *      clauses, then ACTIVE (unless BEGIN called exit()).
 *   3. while it runs, its one consumer thread reads: principal buffers
 *      (trace_session_take_records), aggregation snapshots
 *      (trace_session_take_aggregations, or switch + snapshot for
 *      sending them whole) and its status. exit() in a clause stops
 *      every clause but END's and sets DOF_STATUS_EXITED.
 *   4. trace_session_stop: DRAINING, END's clauses, the probes disabled;
 *      what is left in the buffers may still be read.
 *   5. trace_session_destroy.
 * Aggregation snapshots hold what was added since the previous switch;
 * a reader keeps totals with trace_agg_merge.
 */
#ifndef SCION_TRACE_H
#define SCION_TRACE_H

#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>

struct trace_session;
struct tbuf_set;
struct dof_status;
struct dof_rechdr;
struct dof_aggent;

#define TRACE_DEFAULT_BUFSIZE 65536	/* principal buffers a session makes itself, per CPU */

/*
 * trace_session_create - step 1: a session for the trace object of len
 *   bytes at object (copied; the caller may free it).
 * Return value: 0 with *out, or -errno with a one-line reason in why.
 * Caller's context: thread, may sleep; no locks held.
 */
int trace_session_create(const uint8_t *object, uint32_t len, struct trace_session **out,
			 char *why, size_t whylen);

/*
 * trace_session_notice - a line the session has for the user (the
 *   aggregation size lowered to fit memory), or NULL.
 * Caller's context: any, after trace_session_create.
 */
const char *trace_session_notice(const struct trace_session *s);

/*
 * trace_session_start - step 2.
 * Arguments: bufs, the principal buffers: a stream's, or NULL for the
 *   session's own (TRACE_DEFAULT_BUFSIZE per CPU, freed with it).
 * Return value: 0, or -errno with why filled in (nothing enabled then).
 * Caller's context: thread, may sleep; once per session.
 */
int trace_session_start(struct trace_session *s, struct tbuf_set *bufs, char *why,
			size_t whylen);

/*
 * trace_session_stop - step 4 (nothing but the disabling when the
 *   session never started). Idempotent.
 * Caller's context: thread, may sleep; the session's consumer.
 */
void trace_session_stop(struct trace_session *s);

/* Step 5: free a session stopped or never started. Thread context. */
void trace_session_destroy(struct trace_session *s);

/* EPIDs 1..trace_session_necbs: each one's clause index and probe id. Any context. */
uint32_t trace_session_necbs(const struct trace_session *s);

/* The session's programs with native code (scion/dif_jit.h); *nprogs: all of them. */
uint32_t trace_session_native_programs(const struct trace_session *s, uint32_t *nprogs);
void trace_session_ecb(const struct trace_session *s, uint32_t epid, uint32_t *clause,
		       uint32_t *probe_id);

/*
 * trace_session_take_records - switch the principal buffers and pass
 *   each CPU's records to fn in order (a record's size is its clause's
 *   layout, or an error record's; one whose EPID is unknown ends that
 *   CPU's walk, passed with the rest of the bytes as its size).
 * Return value: the records dropped in that period, all CPUs.
 * Caller's context: the session's consumer thread (no spinlocks).
 */
typedef void trace_record_fn(void *arg, unsigned cpu, const struct dof_rechdr *r, uint32_t size);
uint64_t trace_session_take_records(struct trace_session *s, trace_record_fn *fn, void *arg);

/*
 * trace_session_take_aggregations - switch the aggregation buffers and
 *   pass each CPU's entries to fn (key and values follow the entry:
 *   dof_aggent_key, dof_aggent_values).
 * Caller's context: the session's consumer thread (no spinlocks).
 */
typedef void trace_aggent_fn(void *arg, unsigned cpu, const struct dof_aggent *e);
void trace_session_take_aggregations(struct trace_session *s, trace_aggent_fn *fn, void *arg);

/*
 * trace_session_agg_func - aggregation agg's function (DOF_AGG_*, what
 *   trace_agg_merge needs), or -1 when the program has no such one.
 * Caller's context: any, after trace_session_create.
 */
int trace_session_agg_func(const struct trace_session *s, uint32_t agg);

/*
 * The same in two steps, for a reader sending snapshots whole: the
 * switch, then each CPU's (the reader's to change, until the next switch:
 * a big-endian machine turns it to the wire's order in place).
 */
void trace_session_switch_aggregations(struct trace_session *s);
uint8_t *trace_session_aggregation_snapshot(struct trace_session *s, unsigned cpu,
					    uint32_t *bytes);

/*
 * The wire's byte order (kernel/trace/trace_wire.c): turn one CPU's
 * taken records (bytes long, as the principal buffer holds them), or
 * whole aggregation entries of a snapshot, to little-endian in place,
 * with the session's own layout; nothing on a little-endian machine.
 * Caller's context: the session's consumer, before the next switch;
 * the kernel reads them no more afterwards.
 */
void trace_session_records_to_le(const struct trace_session *s, uint8_t *records, uint32_t bytes);
void trace_session_aggregations_to_le(const struct trace_session *s, uint8_t *entries,
				      uint32_t bytes);

/*
 * trace_session_send_rings - bufpolicy=ring: once END has fired, each
 *   CPU's ring of records, oldest first, in calls of send with at most
 *   chunk_max bytes of whole records each (native order: the caller turns
 *   them with trace_session_records_to_le); nothing for another policy or
 *   a second time.
 * Caller's context: the session's consumer, thread.
 */
void trace_session_send_rings(struct trace_session *s,
			      void (*send)(void *arg, unsigned cpu, uint32_t count,
					   uint8_t *records, uint32_t bytes),
			      void *arg, uint32_t chunk_max);

/* Totals since the session started, and whether exit() ran / END fired. Any context. */
void trace_session_status(const struct trace_session *s, struct dof_status *st);

/*
 * trace_agg_merge - add a snapshot's values (n of them) for one key to
 *   totals: counts, sums, avg's pair and buckets add; min and max keep
 *   the extreme; stddev adds its count, sum and 128-bit sum of squares.
 *   fresh: into holds nothing yet.
 */
void trace_agg_merge(uint8_t func, uint64_t *into, const uint64_t *delta, uint32_t n, bool fresh);

/*
 * trace_start_request - the TRACE_START op (scion/chan_proto.h): a
 *   session whose data a stream carries to the host.
 * Arguments: seq, the request; body/len: u32 bufsize (0: default),
 *   u32 switch_ms, the object (scion/dof.h).
 * Return value: 0, or -errno after answering with a one-line error.
 * Caller's context: the channel thread, may sleep.
 */
int trace_start_request(uint32_t seq, const uint8_t *body, uint32_t len);

/*
 * Anonymous tracing (kernel/trace/anon.c), dtrace's -A/-a.
 * trace_anon_boot - enable the D program a ".anon" boot module holds
 *   (dtc's JSON output), on the session's own buffers, before the shell
 *   starts; says so, or why not, in one console line.
 * Caller's context: boot, thread, after the probe providers exist.
 */
void trace_anon_boot(void);
/*
 * trace_anon_request - the TRACE_ANON op: hand the anonymous session to
 *   the host (scion trace -a) on a stream, once.
 * Caller's context: the channel thread.
 */
int trace_anon_request(uint32_t seq, const uint8_t *body, uint32_t len);
/*
 * trace_stream_claim - carry running session s to the host on a new
 *   stream ("trace-anon", kernel/trace/trace_stream.c), answering seq
 *   as TRACE_START does with json after the EPIDs.
 * Return value: 0 (the stream owns s), or -errno with why (s is still
 *   the caller's).
 * Caller's context: the channel thread, may sleep.
 */
int trace_stream_claim(uint32_t seq, struct trace_session *s, uint32_t switch_ms,
		       const void *json, uint32_t json_len, char *why, size_t whylen);

/*
 * profile_tick - Overview: the profile provider's hook in the clock
 *   interrupt: fires the profile-N probes due on this CPU (and tick-N on
 *   CPU 0), and asks the clock for the interrupt rate the enabled ones
 *   need (clock_want_profile_factor).
 * Arguments: interval_ns, the time between this CPU's timer interrupts
 *   now (a tick, or a fraction of one while a fast tick runs).
 * Return value: none.
 * Caller's context: every timer interrupt of each CPU, interrupts masked;
 *   one load and a branch while no profile probe was ever created.
 */
void profile_tick(uint64_t interval_ns);

#endif
