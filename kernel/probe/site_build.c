// SPDX-License-Identifier: BSD-2-Clause
/*
 * Building a site's code patch: what its consumers insert (inline
 * annotations first when they are safe there, then one call into the
 * dispatcher for the consumers that run in C), the relocated
 * instructions of its region and a jump back; for an int3 site, the
 * out-of-line copy of its instruction. Each patch opens with a header
 * that maps its code back to the text (struct patch_header).
 * Caller's context: probe_mutex held.
 */
#include <scion/probe.h>
#include <scion/mm.h>
#include <scion/textimage.h>
#include <scion/string.h>
#include <scion/errno.h>
#include <arch/insn.h>
#include "probe_internal.h"

#define PATCH_ROOM 1024		/* the most code a patch may hold */

/* Where each piece of a patch's code came from (struct patch_header). */
struct code_map {
	struct patch_map m[PATCH_MAP_MAX];
	unsigned n;
};

static void map_add(struct code_map *map, const struct patch_buf *b, uint64_t orig_offset)
{
	if (map->n < PATCH_MAP_MAX)
		map->m[map->n++] = (struct patch_map){ (uint16_t)b->len, (uint16_t)orig_offset };
}

/*
 * The relocated copy of [from, to), then a jump to `to` unless the copy
 * ends in an instruction that does not fall through (a region may end in
 * padding after a ret).
 */
static void relocate_region(struct patch_buf *b, uint64_t from, uint64_t to, struct code_map *map)
{
	bool falls_through = true;
	const char *why;

	for (uint64_t at = from; at < to && falls_through;) {
		struct insn in;
		insn_decode(&in, text_image_bytes(at), to - at, at);
		map_add(map, b, at - from);
		if (patch_relocate(b, &in, text_image_bytes(at), &why))
			b->overflow = true;	/* checked when the site was created */
		falls_through = insn_falls_through(&in);
		at += in.length;
	}
	if (falls_through)
		patch_emit_jmp(b, to);
}

/* The code of s's patch for state st into b (offsets in map are from b's start). */
static void emit(const struct probe_site *s, struct site_state *st, struct patch_buf *b,
		 struct code_map *map)
{
	map->n = 0;
	if (s->mechanism == SITE_JUMP && st->n) {
		bool flags_free = !(s->live_before & INSN_STATUS_FLAGS);
		map_add(map, b, 0);
		for (unsigned i = st->ncall; i < st->n; i++) {
			struct probe_consumer *c = st->c[i];
			struct patch_accumulator slots;
			if (c->action == PROBE_COUNT) {
				patch_emit_counter(b, (uintptr_t)c->counter, flags_free);
			} else {
				accumulator_slots(c->acc, &slots);
				patch_emit_accumulate(b, &slots, c->action == PROBE_ENTER ? 1 : -1);
			}
		}
		if (st->ncall)
			patch_emit_frame_call(b, s->addr, (uintptr_t)probe_dispatch_frame,
					      (uintptr_t)st);
	}
	relocate_region(b, s->addr, s->addr + s->length, map);
}

/*
 * A new state and patch for s and its current consumers. The code is
 * built twice: once to learn its size (every branch in it is a rel32
 * whatever the address), then in a patch of exactly that size, after the
 * header that maps it back to the kernel text.
 */
int site_build(struct probe_site *s, struct patch **out)
{
	size_t n = s->nconsumers;
	struct site_state *st = kzalloc(sizeof(*st) + n * sizeof(st->c[0]));
	uint8_t *scratch = kmalloc(PATCH_ROOM);
	struct code_map map;
	struct patch_buf b;
	struct patch *p = NULL;

	if (!st || !scratch)
		goto fail;
	st->addr = s->addr;
	st->mechanism = s->mechanism;
	/* C consumers first: the frame call runs c[0 .. ncall-1]. */
	list_foreach(&s->consumer_list, it) {
		struct probe_consumer *c = list_entry(it, struct site_link, node)->consumer;
		if (s->mechanism == SITE_INT3 || !consumer_inline(c, s->live_before))
			st->c[st->ncall++] = c;
	}
	st->n = st->ncall;
	list_foreach(&s->consumer_list, it) {
		struct probe_consumer *c = list_entry(it, struct site_link, node)->consumer;
		if (s->mechanism == SITE_JUMP && consumer_inline(c, s->live_before))
			st->c[st->n++] = c;
	}

	patch_buf_init(&b, scratch, PATCH_ROOM, PATCH_CODE_BASE);
	emit(s, st, &b, &map);
	size_t header = ALIGN_UP(sizeof(struct patch_header) + map.n * sizeof(struct patch_map), 16);
	if (!patch_buf_ok(&b) || !(p = patch_alloc((uint32_t)(header + b.len))))
		goto fail;
	uint8_t *mem = patch_writable(p);
	p->entry = p->addr + header;
	patch_buf_init(&b, mem + header, p->size - header, p->entry);
	emit(s, st, &b, &map);
	if (!patch_buf_ok(&b))
		goto fail;
	struct patch_header *h = (struct patch_header *)mem;
	h->magic = PATCH_MAGIC;
	h->nmap = (uint16_t)map.n;
	h->code_offset = (uint16_t)header;
	h->site = s->addr;
	for (unsigned i = 0; i < map.n; i++)
		h->map[i] = (struct patch_map){ (uint16_t)(map.m[i].code + header), map.m[i].orig };
	kfree(scratch);
	st->resume = p->entry;
	p->state = st;
	*out = p;
	return 0;
fail:
	kfree(st);
	kfree(scratch);
	patch_retire(p);
	return -ENOMEM;
}

/* Make s an int3 probe (it was going to be a jump): a one-instruction copy. */
int site_demote_to_int3(struct probe_site *s, const char *why)
{
	struct insn in;
	struct patch *p, *old = s->patch;

	insn_decode(&in, text_image_bytes(s->addr), SITE_REGION_MAX, s->addr);
	s->mechanism = SITE_INT3;
	s->length = in.length;
	s->why_not_jump = why;
	int err = site_build(s, &p);
	if (err)
		return err;
	s->patch = p;
	__atomic_store_n(&s->state, p->state, __ATOMIC_RELEASE);
	patch_retire(old);
	return 0;
}

