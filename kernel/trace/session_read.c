// SPDX-License-Identifier: BSD-2-Clause
/*
 * Reading a session's data (scion/trace.h): its principal buffers
 * record by record, its aggregation buffers entry by entry, its status,
 * and merging one aggregation snapshot into totals, as the host consumer
 * does. What an in-kernel client of a session reads with; the channel's
 * stream sends the same buffers whole instead. Portable: the D oracle
 * (tests/dref/) reads its host sessions with this file.
 *
 * Each take_* call switches the buffers (a cross-call round) and must
 * come from the session's one consumer thread; what the callbacks are
 * given is valid only during the call.
 */
#include <scion/string.h>
#include <scion/tbuf.h>
#include <scion/trace.h>
#include "trace_internal.h"

uint64_t trace_session_take_records(struct trace_session *s, trace_record_fn *fn, void *arg)
{
	uint64_t all_drops = 0;
	tbuf_switch(s->bufs);
	for (unsigned cpu = 0; cpu < cpu_count() && cpu < MAX_CPUS; cpu++) {
		uint32_t bytes, at = 0;
		uint64_t records, drops;
		const uint8_t *data = tbuf_taken(s->bufs, cpu, &bytes, &records, &drops);
		all_drops += drops;
		while (at + sizeof(struct dof_rechdr) <= bytes) {
			const struct dof_rechdr *r = (const struct dof_rechdr *)(data + at);
			uint32_t size = r->epid == DOF_EPID_ERROR ?
				(uint32_t)(sizeof(*r) + sizeof(struct dof_error)) :
				trace_record_size(s, r->epid);
			if (!size || size > bytes - at)
				size = bytes - at;	/* not a record: the rest, as it is */
			fn(arg, cpu, r, size);
			at += (size + TBUF_ALIGN - 1) & ~(TBUF_ALIGN - 1);
		}
	}
	return all_drops;
}

void trace_session_take_aggregations(struct trace_session *s, trace_aggent_fn *fn, void *arg)
{
	aggbuf_switch(s->aggs);
	for (unsigned cpu = 0; cpu < cpu_count() && cpu < MAX_CPUS; cpu++) {
		uint32_t bytes, at = 0;
		const uint8_t *data = aggbuf_taken(s->aggs, cpu, &bytes);
		while (at + sizeof(struct dof_aggent) <= bytes) {
			const struct dof_aggent *e = (const struct dof_aggent *)(data + at);
			uint32_t size = (uint32_t)sizeof(*e) + e->keybytes + e->valbytes;
			if (e->agg >= s->obj.naggs || size > bytes - at)
				break;		/* the kernel wrote it: cannot happen */
			fn(arg, cpu, e);
			at += size;
		}
	}
}

uint8_t *trace_session_aggregation_snapshot(struct trace_session *s, unsigned cpu,
					    uint32_t *bytes)
{
	return (uint8_t *)aggbuf_taken(s->aggs, cpu, bytes);	/* the inactive buffer: the reader's */
}

void trace_session_switch_aggregations(struct trace_session *s)
{
	aggbuf_switch(s->aggs);
}

int trace_session_agg_func(const struct trace_session *s, uint32_t agg)
{
	return agg < s->obj.naggs ? s->obj.aggs[agg].func : -1;
}

void trace_session_status(const struct trace_session *s, struct dof_status *st)
{
	memset(st, 0, sizeof(*st));
	st->dynvar_drops = __atomic_load_n(&s->counters.dynvar_drops, __ATOMIC_RELAXED);
	st->spec_drops = __atomic_load_n(&s->counters.spec_drops, __ATOMIC_RELAXED);
	st->spec_unavail = __atomic_load_n(&s->counters.spec_unavail, __ATOMIC_RELAXED);
	st->agg_drops = __atomic_load_n(&s->counters.agg_drops, __ATOMIC_RELAXED);
	st->errors = __atomic_load_n(&s->counters.errors, __ATOMIC_RELAXED);
	if (__atomic_load_n(&s->exited, __ATOMIC_ACQUIRE)) {
		st->flags |= DOF_STATUS_EXITED;
		st->exit_status = s->exit_status;
	}
	if (__atomic_load_n(&s->state, __ATOMIC_ACQUIRE) == TRACE_STOPPED)
		st->flags |= DOF_STATUS_ENDED;
	st->filled_cpus = __atomic_load_n(&s->filled_cpus, __ATOMIC_RELAXED);
	if (st->filled_cpus)
		st->flags |= DOF_STATUS_FILLED;
}

void trace_agg_merge(uint8_t func, uint64_t *into, const uint64_t *delta, uint32_t n, bool fresh)
{
	switch (func) {
	case DOF_AGG_MIN:
		if (fresh || (int64_t)delta[0] < (int64_t)into[0])
			into[0] = delta[0];
		return;
	case DOF_AGG_MAX:
		if (fresh || (int64_t)delta[0] > (int64_t)into[0])
			into[0] = delta[0];
		return;
	case DOF_AGG_STDDEV: {
		/* count, sum, and the sum of squares as a 128-bit pair */
		unsigned __int128 a = (unsigned __int128)into[3] << 64 | into[2];
		unsigned __int128 b = (unsigned __int128)delta[3] << 64 | delta[2];
		into[0] += delta[0];
		into[1] += delta[1];
		into[2] = (uint64_t)(a + b);
		into[3] = (uint64_t)((a + b) >> 64);
		return;
	}
	default:		/* counts, sums, avg's pair, buckets */
		for (uint32_t i = 0; i < n; i++)
			into[i] += delta[i];
		return;
	}
}

void trace_session_send_rings(struct trace_session *s,
			      void (*send)(void *arg, unsigned cpu, uint32_t count,
					   uint8_t *records, uint32_t bytes),
			      void *arg, uint32_t chunk_max)
{
	if (__atomic_load_n(&s->state, __ATOMIC_ACQUIRE) == TRACE_STOPPED)
		trace_bufpolicy_send_rings(s, send, arg, chunk_max);
}
