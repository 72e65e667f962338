// SPDX-License-Identifier: BSD-2-Clause
/*
 * Building a site's code patch: what its consumers insert (inline
 * annotations first when they are safe there, then one call into the
 * dispatcher for the consumers that run in C), the relocated
 * instructions of its region and a branch back; for a breakpoint site,
 * the out-of-line copy of its instruction. This file decides what a
 * patch does (struct probe_patch_plan); the arch writes its code
 * (arch_probe_build_patch). Each patch opens with a header that maps its
 * code back to the text (struct patch_header).
 * Caller's context: probe_mutex held.
 */
#include <scion/probe.h>
#include <scion/mm.h>
#include <scion/string.h>
#include <scion/errno.h>
#include <scion/printk.h>
#include <scion/cpu.h>
#include "probe_internal.h"

_Static_assert(CPU_PROBE_RUNNING == 1,
	       "a patch's handler call tests and clears bit 0 of cpu_run (scion/probe_arch.h)");

#define PATCH_ROOM 1024		/* the most code a patch may hold */
#define INLINE_ON_STACK 8	/* inline consumers planned without an allocation */

/* The sizing build's room: one for all builds (they run under probe_mutex), not one each. */
static uint8_t scratch[PATCH_ROOM];

/* States for one consumer (most sites have one) come from a pool: no kzalloc (obj_pool.c). */
static struct probe_pool state_pool = {
	ALIGN_UP(sizeof(struct site_state) + sizeof(struct probe_consumer *), 8), 64, NULL
};

static struct site_state *state_alloc(size_t n)
{
	if (n > 1)
		return kzalloc(sizeof(struct site_state) + n * sizeof(struct probe_consumer *));
	struct site_state *st = probe_pool_alloc(&state_pool);
	if (st)
		st->pooled = true;
	return st;
}

void site_state_free(struct site_state *st)
{
	if (!st)
		return;
	/* Its patch is being freed, or never ran: nothing else reaches the slots. */
	data_release(st->hot, PATCH_HOT_SLOTS);
	if (st->pooled)
		probe_pool_free(&state_pool, st);
	else
		kfree(st);
}

void site_state_retire(struct site_state *st)
{
	__atomic_store_n(&st->retired, true, __ATOMIC_RELEASE);
	if (st->hot)
		__atomic_fetch_or(&st->hot[PATCH_HOT_HITS], PROBE_PATCH_HITS_RETIRED,
				  __ATOMIC_RELEASE);
}

uint64_t site_state_hits(const struct site_state *st)
{
	uint64_t hot = st->hot ? READ_ONCE(st->hot[PATCH_HOT_HITS]) : 0;
	return READ_ONCE(st->hits) + (hot & ~PROBE_PATCH_HITS_RETIRED);
}

/* Whether st's C consumers are one handler for every thread (struct probe_patch_handler). */
static bool one_handler(const struct site_state *st)
{
	if (st->ncall != 1)
		return false;
	const struct probe_consumer *c = st->c[0];
	return c->action == PROBE_HANDLER && !c->tid && !c->may_pause;
}

/*
 * The plan of s's patch for state st: its inline consumers
 * st->c[ncall .. n-1] as inline code (inl has room for them), then a call
 * of the dispatcher for st->c[0 .. ncall-1].
 */
static void plan(const struct probe_site *s, const struct site_state *st,
		 struct probe_patch_inline *inl, struct probe_patch_handler *h,
		 struct probe_patch_plan *p)
{
	*p = (struct probe_patch_plan){ .site = s->addr, .length = s->length,
					.mechanism = s->mechanism, .live = s->live_before,
					.inl = inl };
	list_foreach(&s->consumer_list, it) {
		const struct probe_consumer *c = list_entry(it, struct site_link, node)->consumer;
		if (c->action == PROBE_REDIRECT)
			p->redirect = c->redirect;
	}
	if (s->mechanism != PROBE_SITE_JUMP)
		return;
	for (unsigned i = st->ncall; i < st->n; i++) {
		const struct probe_consumer *c = st->c[i];
		struct probe_patch_inline *in = &inl[p->ninline++];
		*in = (struct probe_patch_inline){ 0 };
		if (c->action == PROBE_COUNT) {
			in->kind = PROBE_INLINE_COUNT;
			in->counter = (uintptr_t)c->counter;
		} else {
			in->kind = PROBE_INLINE_ACCUMULATE;
			in->delta = c->action == PROBE_ENTER ? 1 : -1;
			accumulator_slots(c->acc, &in->slots);
		}
	}
	if (st->ncall) {
		const struct probe_consumer *c = st->c[0];
		bool one = one_handler(st);
		p->call_fn = (uintptr_t)(one ? probe_dispatch_handler : probe_dispatch_frame);
		p->call_cookie = (uintptr_t)st;
		if (one && st->hot) {
			*h = (struct probe_patch_handler){
				.fn = (uintptr_t)c->handler, .arg = (uintptr_t)c->arg,
				.hits = (uintptr_t)&st->hot[PATCH_HOT_HITS],
				.probe_slot = (uintptr_t)&st->hot[PATCH_HOT_PROBE],
				.retired_fn = (uintptr_t)probe_dispatch_frame,
				.retired = offsetof(struct site_state, retired),
				.missed = offsetof(struct site_state, missed),
				.cpu_run = offsetof(struct cpu, probe_run),
			};
			p->handler = h;
		}
	}
}

/*
 * A new state and patch for s and its current consumers. The code is
 * built twice: once to learn its size (the arch emits every branch as
 * long wherever the code runs), then in a patch of exactly that size,
 * after the header that maps it back to the kernel text.
 */
int site_build(struct probe_site *s, struct patch **out)
{
	size_t n = s->nconsumers;
	struct site_state *st = state_alloc(n);
	struct probe_patch_inline few[INLINE_ON_STACK];
	struct probe_patch_inline *inl = n <= INLINE_ON_STACK ? few : kmalloc(n * sizeof(*inl));
	struct probe_patch_origins map;
	struct probe_patch_plan pl;
	struct probe_patch_handler handler;
	struct patch_buf b;
	struct patch *p = NULL;

	if (!st || !inl)
		goto fail;
	st->addr = s->addr;
	st->mechanism = s->mechanism;
	st->length = s->mechanism == PROBE_SITE_JUMP ? s->length : 0;
	/* C consumers first: the frame call runs c[0 .. ncall-1]. A redirect is the plan's. */
	list_foreach(&s->consumer_list, it) {
		struct probe_consumer *c = list_entry(it, struct site_link, node)->consumer;
		if (c->action == PROBE_REDIRECT)
			continue;
		if (s->mechanism == PROBE_SITE_BREAKPOINT || !consumer_inline(c, s->live_before))
			st->c[st->ncall++] = c;
	}
	st->n = st->ncall;
	list_foreach(&s->consumer_list, it) {
		struct probe_consumer *c = list_entry(it, struct site_link, node)->consumer;
		if (c->action != PROBE_REDIRECT && s->mechanism == PROBE_SITE_JUMP &&
		    consumer_inline(c, s->live_before))
			st->c[st->n++] = c;
	}

	if (s->mechanism == PROBE_SITE_JUMP && one_handler(st)) {
		/* Without these slots the patch calls probe_dispatch_handler instead. */
		st->hot = data_alloc(PATCH_HOT_SLOTS);
		if (st->hot)
			st->hot[PATCH_HOT_PROBE] = (uintptr_t)st->c[0]->firing_for;
	}
	plan(s, st, inl, &handler, &pl);
	patch_buf_init(&b, scratch, PATCH_ROOM, PATCH_CODE_BASE);
	arch_probe_build_patch(&b, &pl, &map);
	size_t header = ALIGN_UP(sizeof(struct patch_header) + map.n * sizeof(map.m[0]), 16);
	if (!patch_buf_ok(&b) || !(p = patch_alloc((uint32_t)(header + b.len))))
		goto fail;
	uint8_t *mem = patch_writable(p);
	p->entry = p->addr + header;
	/* A jump that cannot reach its patch goes through a springboard, the site's until removal. */
	if (s->mechanism == PROBE_SITE_JUMP && !s->springboard && !arch_probe_reaches(s->addr, p->entry)) {
		const char *why;
		s->springboard = arch_probe_springboard_alloc(s->addr, &why);
		if (!s->springboard) {
			printk("probe: 0x%llx: its patch is beyond the branch's reach and %s\n",
			       (unsigned long long)s->addr, why);
			goto fail;
		}
	}
	patch_buf_init(&b, mem + header, p->size - header, p->entry);
	arch_probe_build_patch(&b, &pl, &map);
	if (!patch_buf_ok(&b))
		goto fail;
	struct patch_header *h = (struct patch_header *)mem;
	h->magic = PATCH_MAGIC;
	h->nmap = (uint16_t)map.n;
	h->code_offset = (uint16_t)header;
	h->site = s->addr;
	for (unsigned i = 0; i < map.n; i++)
		h->map[i] = (struct probe_patch_origin){ (uint16_t)(map.m[i].code + header),
							 map.m[i].orig };
	if (inl != few)
		kfree(inl);
	st->resume = p->entry;
	p->state = st;
	*out = p;
	return 0;
fail:
	site_state_free(st);
	if (inl != few)
		kfree(inl);
	patch_retire(p);
	return -ENOMEM;
}

/*
 * Make s a breakpoint probe (it was going to be a jump): a copy of its
 * first instruction, which relocates (the whole region did).
 */
int site_demote_to_breakpoint(struct probe_site *s, const char *why)
{
	struct patch *p, *old = s->patch;
	unsigned length;
	const char *unused;

	arch_probe_prepare_breakpoint(s->addr, &length, &unused);
	/* Its springboard was never written (demotion comes before the body step). */
	if (s->springboard)
		arch_probe_springboard_free(s->springboard);
	s->springboard = 0;
	s->mechanism = PROBE_SITE_BREAKPOINT;
	s->length = (uint8_t)length;
	s->why_not_jump = why;
	int err = site_build(s, &p);
	if (err)
		return err;
	s->patch = p;
	__atomic_store_n(&s->state, p->state, __ATOMIC_RELEASE);
	patch_retire(old);
	return 0;
}

