// SPDX-License-Identifier: BSD-2-Clause
/*
 * The principal buffers' policies (enum dof_bufpolicy in scion/dof.h):
 * where a record of a firing goes.
 *   switch  straight into the stream's per-CPU buffer (tbuf), sent every
 *           switch interval;
 *   fill    the same, but each CPU may write only bufsize bytes, less
 *           what END's clauses record, over the whole session: the record
 *           that would pass that is dropped, the CPU is marked filled and
 *           the session moves to DRAINING (as exit() moves it), so that
 *           the host stops it, END fires and its records fit;
 *   ring    into a ring of bufsize bytes per CPU that overwrites its
 *           oldest records; the rings are sent once, after END.
 *
 * A ring holds whole records back to back: live data is [head, end) and
 * then [0, tail) when it has wrapped, else [0, tail). Its records' sizes
 * come from their EPIDs (trace_record_size), as a speculation's do.
 *
 * Probe context for trace_reserve (this CPU's state only, interrupts
 * masked); thread context for the rest.
 */
#include <scion/mm.h>
#include <scion/string.h>
#include "trace_internal.h"

struct trace_ring {
	uint8_t *buf;
	uint32_t size;
	uint32_t head, tail, end;
	bool wrapped;
};

static uint32_t align8(uint32_t n)
{
	return (n + 7u) & ~7u;
}

/* Bytes of the record at at (8-aligned), 0 for one that cannot be. */
static uint32_t record_bytes(struct trace_session *s, const uint8_t *at)
{
	const struct dof_rechdr *h = (const struct dof_rechdr *)at;
	if (h->epid == DOF_EPID_ERROR)
		return align8(sizeof(*h) + sizeof(struct dof_error));
	return align8(trace_record_size(s, h->epid));
}

static void *ring_reserve(struct trace_session *s, struct trace_ring *r, uint32_t bytes)
{
	uint32_t need = align8(bytes);
	if (need > r->size)
		return NULL;
	for (;;) {
		if (!r->wrapped) {
			if (r->tail + need <= r->size) {
				r->tail += need;
				return r->buf + r->tail - need;
			}
			r->end = r->tail;	/* [0, end) is now the older part */
			r->tail = 0;
			r->head = 0;
			r->wrapped = true;
		}
		if (r->tail + need <= r->head) {
			r->tail += need;
			return r->buf + r->tail - need;
		}
		uint32_t oldest = record_bytes(s, r->buf + r->head);
		if (!oldest || r->head + oldest > r->end) {	/* cannot happen: start afresh */
			r->head = r->tail = r->end = 0;
			r->wrapped = false;
			continue;
		}
		r->head += oldest;			/* overwritten */
		if (r->head >= r->end) {
			r->head = r->end = 0;
			r->wrapped = false;
		}
	}
}

/* Fill: may this CPU write need more bytes? If not, it has filled: DRAINING. */
static bool fill_admits(struct trace_session *s, struct trace_cpu *c, unsigned cpu, uint32_t need)
{
	/* END's records may use what the others leave them. */
	bool draining = __atomic_load_n(&s->state, __ATOMIC_ACQUIRE) == TRACE_DRAINING;
	uint64_t limit = s->bufs->size;
	if (!draining)
		limit = limit > s->end_reserve ? limit - s->end_reserve : 0;
	if (c->fill_bytes + need <= limit) {
		c->fill_bytes += need;
		return true;
	}
	__atomic_fetch_or(&s->filled_cpus, 1ull << (cpu & 63), __ATOMIC_RELAXED);
	enum trace_state active = TRACE_ACTIVE, warm = TRACE_WARMUP;
	if (!__atomic_compare_exchange_n(&s->state, &active, TRACE_DRAINING, false,
					 __ATOMIC_ACQ_REL, __ATOMIC_RELAXED))
		__atomic_compare_exchange_n(&s->state, &warm, TRACE_DRAINING, false,
					    __ATOMIC_ACQ_REL, __ATOMIC_RELAXED);
	return false;
}

void *trace_reserve(struct trace_session *s, uint32_t bytes)
{
	unsigned cpu = this_cpu_index();
	struct trace_cpu *c = cpu < MAX_CPUS ? &s->cpu[cpu] : NULL;
	void *at = NULL;
	switch (s->obj.option[DOF_OPT_BUFPOLICY]) {
	case DOF_BUFPOLICY_FILL:
		if (c && fill_admits(s, c, cpu, align8(bytes)))
			return tbuf_reserve(s->bufs, bytes);
		break;
	case DOF_BUFPOLICY_RING:
		if (c && c->ring)
			at = ring_reserve(s, c->ring, bytes);
		break;
	default:
		return tbuf_reserve(s->bufs, bytes);
	}
	if (!at)
		tbuf_drop(s->bufs);
	return at;
}

int trace_bufpolicy_start(struct trace_session *s)
{
	/* Decided once here, not on each firing: the policy and the clauses are final now. */
	bool switching = s->obj.option[DOF_OPT_BUFPOLICY] == DOF_BUFPOLICY_SWITCH;
	for (uint32_t i = 0; i < s->obj.nclauses; i++) {
		struct trace_clause *c = &s->obj.clauses[i];
		c->in_place = switching && c->record_size && !c->speculative &&
			      !c->writes_principal;
	}
	s->end_reserve = 0;
	for (struct trace_ecb *e = s->end; e; e = e->next)
		s->end_reserve += align8(e->clause->record_size);
	if (s->obj.option[DOF_OPT_BUFPOLICY] != DOF_BUFPOLICY_RING)
		return 0;
	for (unsigned i = 0; i < cpu_count() && i < MAX_CPUS; i++) {
		struct trace_ring *r = kmalloc(sizeof(*r));
		uint8_t *buf = r ? kmalloc(s->bufs->size) : NULL;
		if (!buf) {
			kfree(r);
			return -1;
		}
		memset(r, 0, sizeof(*r));
		r->buf = buf;
		r->size = s->bufs->size;
		s->cpu[i].ring = r;
	}
	return 0;
}

void trace_bufpolicy_free(struct trace_session *s)
{
	for (unsigned i = 0; i < MAX_CPUS; i++) {
		if (s->cpu[i].ring)
			kfree(s->cpu[i].ring->buf);
		kfree(s->cpu[i].ring);
		s->cpu[i].ring = NULL;
	}
}

/* Whole records of [at, at + bytes) up to max bytes: how many bytes, and *count records. */
static uint32_t whole_records(struct trace_session *s, const uint8_t *at, uint32_t bytes,
			      uint32_t max, uint32_t *count)
{
	uint32_t n = 0;
	*count = 0;
	while (n < bytes) {
		uint32_t size = record_bytes(s, at + n);
		if (!size || n + size > bytes || n + size > max)
			break;
		n += size;
		(*count)++;
	}
	return n;
}

void trace_bufpolicy_send_rings(struct trace_session *s,
				void (*send)(void *arg, unsigned cpu, uint32_t count,
					     uint8_t *records, uint32_t bytes),
				void *arg, uint32_t chunk_max)
{
	for (unsigned cpu = 0; cpu < MAX_CPUS; cpu++) {
		struct trace_ring *r = s->cpu[cpu].ring;
		if (!r)
			continue;
		struct { uint32_t from, to; } parts[2] = { { 0, r->tail }, { 0, 0 } };
		if (r->wrapped) {
			parts[0].from = r->head;
			parts[0].to = r->end;
			parts[1].to = r->tail;
		}
		for (unsigned p = 0; p < 2; p++) {
			uint32_t at = parts[p].from;
			while (at < parts[p].to) {
				uint32_t count;
				uint32_t n = whole_records(s, r->buf + at, parts[p].to - at, chunk_max,
							   &count);
				if (!n)
					break;
				send(arg, cpu, count, r->buf + at, n);
				at += n;
			}
		}
		r->head = r->tail = r->end = 0;		/* sent once */
		r->wrapped = false;
	}
}
