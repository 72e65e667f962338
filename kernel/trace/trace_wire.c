// SPDX-License-Identifier: BSD-2-Clause
/*
 * A trace session's data in the wire's byte order (scion/dof.h: the
 * records, aggregation entries and status the host consumer reads are
 * little-endian). Probe context writes records and folds aggregations
 * natively, and the kernel reads them back natively (aggregations merge
 * in place, session_read.c walks records by their EPID), so they are
 * turned only where a chunk leaves (trace_stream.c), in the consumer's
 * taken buffers, with the session's own layout: each record's clause
 * (from its EPID) says where its data lie (dof.c placed them), each
 * entry's aggregation says what its key items are.
 *
 * What is turned, as the host decodes it (host/scionhost/dconsumer.py,
 * dagg.py): the record header and an error's struct dof_error; each
 * integer datum (trace(), printf arguments, exit()) as one u64, a
 * stack() as its u64 PCs, a string datum or an object traced whole (its
 * bytes as in memory) not at all; an aggregation
 * entry's struct dof_aggent, its integer and stack key items as u64s,
 * string items not at all, its values as u64s. No state, no locks: the
 * caller is the session's one consumer.
 */
#include <scion/chan_wire.h>
#include <scion/trace.h>
#include "trace_internal.h"

/* bytes (a multiple of 8) of struct dof_word at p. */
static void turn_words(uint8_t *p, uint32_t bytes)
{
	chan_wire_to_le(CHAN_WIRE(dof_word), p, bytes / sizeof(struct dof_word));
}

/* One record of clause c: each datum that is not a string. */
static void turn_record_data(const struct trace_clause *c, uint8_t *record)
{
	for (uint32_t i = 0; i < c->nactions; i++) {
		const struct trace_action *a = &c->actions[i];
		bool bytes = a->kind == DOF_ACT_RECORD && a->progs[0]->rtype != DIF_TYPE_INT;
		if (a->size && !bytes)
			turn_words(record + a->offset, a->size);
	}
}

void trace_session_records_to_le(const struct trace_session *s, uint8_t *records, uint32_t bytes)
{
	if (!CHAN_WIRE_SWAPS)
		return;
	for (uint32_t at = 0; at + sizeof(struct dof_rechdr) <= bytes;) {
		struct dof_rechdr *r = (struct dof_rechdr *)(records + at);
		uint32_t epid = r->epid, size;
		if (epid == DOF_EPID_ERROR) {
			size = (uint32_t)(sizeof(*r) + sizeof(struct dof_error));
			if (size > bytes - at)
				return;
			chan_wire_to_le(CHAN_WIRE(dof_error), r + 1, 1);
		} else {
			size = trace_record_size((void *)s, epid);
			if (!size || size > bytes - at)
				return;		/* not a record: the rest goes as it is */
			turn_record_data(s->ecbs[epid - 1].clause, (uint8_t *)r);
		}
		chan_wire_to_le(CHAN_WIRE(dof_rechdr), r, 1);
		at += (size + TBUF_ALIGN - 1) & ~(uint32_t)(TBUF_ALIGN - 1);
	}
}

/* An entry's key items: integers and stacks as u64s (each item 8-aligned), strings as they are. */
static void turn_key(const struct trace_agg *g, uint8_t *key, uint32_t keybytes)
{
	uint32_t at = 0;
	for (unsigned k = 0; k < g->nkeys; k++) {
		uint32_t size = (g->key_size[k] + 7u) & ~7u;
		if (at + size > keybytes)
			return;
		if (g->key_type[k] == DIF_TYPE_INT || g->key_type[k] == DOF_KEY_STACK)
			turn_words(key + at, size);
		at += size;
	}
}

void trace_session_aggregations_to_le(const struct trace_session *s, uint8_t *entries,
				      uint32_t bytes)
{
	if (!CHAN_WIRE_SWAPS)
		return;
	for (uint32_t at = 0; at + sizeof(struct dof_aggent) <= bytes;) {
		struct dof_aggent *e = (struct dof_aggent *)(entries + at);
		uint32_t agg = e->agg, keybytes = e->keybytes, valbytes = e->valbytes;
		uint32_t size = (uint32_t)sizeof(*e) + keybytes + valbytes;
		if (agg >= s->obj.naggs || size > bytes - at)
			return;		/* the kernel wrote it: cannot happen */
		turn_key(&s->obj.aggs[agg], (uint8_t *)(e + 1), keybytes);
		turn_words((uint8_t *)(e + 1) + keybytes, valbytes);
		chan_wire_to_le(CHAN_WIRE(dof_aggent), e, 1);
		at += size;
	}
}
