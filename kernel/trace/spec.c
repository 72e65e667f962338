// SPDX-License-Identifier: BSD-2-Clause
/*
 * Speculations: a bounded number of speculative buffers per session.
 * speculation() takes a free one (its id is 1..nspec); a clause that
 * calls speculate(id) writes its record there instead of the principal
 * buffer; commit(id) moves the records into the principal buffer of
 * the committing CPU, discard(id) throws them away, and either frees
 * the buffer.
 *
 * Each speculation has a leaf spinlock guarding its state and data, so
 * records from several CPUs may join one speculation. Records keep
 * their order of arrival.
 */
#include <scion/mm.h>
#include <scion/string.h>
#include <scion/spinlock.h>
#include "trace_internal.h"

enum spec_state { SPEC_FREE, SPEC_ACTIVE };

struct speculation {
	struct spinlock lock;
	enum spec_state state;		/* lock */
	uint32_t used;			/* lock */
	uint8_t *data;			/* lock: records, each 8-aligned */
};

struct spec_set {
	uint32_t n, size;		/* set once */
	struct speculation spec[];
};

struct spec_set *spec_create(uint32_t nspec, uint32_t bytes)
{
	struct spec_set *s = kzalloc(sizeof(*s) + nspec * sizeof(struct speculation));
	if (!s)
		return NULL;
	s->n = nspec;
	s->size = bytes;
	for (uint32_t i = 0; i < nspec; i++) {
		spin_init(&s->spec[i].lock, "trace-speculation");
		if (!(s->spec[i].data = kmalloc(bytes))) {
			spec_destroy(s);
			return NULL;
		}
	}
	return s;
}

void spec_destroy(struct spec_set *s)
{
	if (!s)
		return;
	for (uint32_t i = 0; i < s->n; i++)
		kfree(s->spec[i].data);
	kfree(s);
}

uint64_t spec_new(struct spec_set *s)
{
	for (uint32_t i = 0; i < s->n; i++) {
		struct speculation *sp = &s->spec[i];
		irqflags_t f = spin_lock_irqsave(&sp->lock);
		bool took = sp->state == SPEC_FREE;
		if (took) {
			sp->state = SPEC_ACTIVE;
			sp->used = 0;
		}
		spin_unlock_irqrestore(&sp->lock, f);
		if (took)
			return i + 1;
	}
	return 0;
}

static struct speculation *lookup(struct spec_set *s, uint64_t id)
{
	return id >= 1 && id <= s->n ? &s->spec[id - 1] : NULL;
}

bool spec_append(struct spec_set *s, uint64_t id, const void *rec, uint32_t size)
{
	struct speculation *sp = lookup(s, id);
	if (!sp)
		return false;
	uint32_t need = (size + 7u) & ~7u;
	irqflags_t f = spin_lock_irqsave(&sp->lock);
	bool ok = sp->state == SPEC_ACTIVE && s->size - sp->used >= need;
	if (ok) {
		memcpy(sp->data + sp->used, rec, size);
		sp->used += need;
	}
	spin_unlock_irqrestore(&sp->lock, f);
	return ok;
}

void spec_commit(struct spec_set *s, uint64_t id,
		 void *(*reserve)(void *arg, uint32_t bytes),
		 uint32_t (*record_size)(void *arg, uint32_t epid), void *arg)
{
	struct speculation *sp = lookup(s, id);
	if (!sp)
		return;
	irqflags_t f = spin_lock_irqsave(&sp->lock);
	if (sp->state == SPEC_ACTIVE) {
		uint32_t at = 0;
		while (at + sizeof(struct dof_rechdr) <= sp->used) {
			const struct dof_rechdr *h = (const struct dof_rechdr *)(sp->data + at);
			uint32_t size = record_size(arg, h->epid);
			if (!size || at + size > sp->used)
				break;	/* cannot happen: only whole records go in */
			void *dst = reserve(arg, size);
			if (dst)
				memcpy(dst, h, size);
			at += (size + 7u) & ~7u;
		}
		sp->state = SPEC_FREE;
		sp->used = 0;
	}
	spin_unlock_irqrestore(&sp->lock, f);
}

void spec_discard(struct spec_set *s, uint64_t id)
{
	struct speculation *sp = lookup(s, id);
	if (!sp)
		return;
	irqflags_t f = spin_lock_irqsave(&sp->lock);
	sp->state = SPEC_FREE;
	sp->used = 0;
	spin_unlock_irqrestore(&sp->lock, f);
}
