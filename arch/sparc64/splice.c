// SPDX-License-Identifier: BSD-2-Clause
/*
 * What a sparc64 patch holds and what each step of the probe protocol
 * writes (the protocol and the contract are scion/probe_arch.h; the
 * portable commit is kernel/probe/site_commit.c).
 *
 * A splice is KernInst's: one aligned 4-byte store of `ba,a` over one
 * instruction, which a CPU fetches whole or not at all, so no
 * intermediate breakpoint is needed (djprobe's int3 exists because x86's
 * jmp is 5 bytes):
 *
 *   1. Write `ta` over every breakpoint site installed; restore the word
 *      of every breakpoint site removed (a rebuilt one keeps its `ta`:
 *      the handler finds the new copy). Jump sites: nothing. Sync.
 *   2. (Portable: a jump site something is inside becomes a breakpoint.)
 *   3. A jump site whose patch is beyond ba,a's reach goes through its
 *      springboard (springboard.c): write the slot (a new one: nothing
 *      branches there yet), or, when the site already branches to it,
 *      only the slot's patch address (one aligned doubleword). Other
 *      sites: nothing, the patch is complete before a branch to it exists.
 *   4. Write `ba,a patch` (or `ba,a slot`) over every jump site installed
 *      or rebuilt (a rebuilt site's branch moves to its new patch in the
 *      same single store); restore the word of every jump site removed.
 *      Sync. A removed site's slot is freed with its last patch, once no
 *      CPU is in either (kernel/probe/patch_heap.c).
 *
 * Runs in .text.noprobe (arch.mk), under probe_mutex.
 */
#include <scion/probe_arch.h>
#include <scion/cfg.h>
#include <scion/cpu.h>
#include <scion/textimage.h>
#include <scion/printk.h>
#include <arch/percpu.h>

#include "sparc64.h"

/* probe_frame.S: the frame call's shared trampoline (not C-callable: see there). */
extern char sparc64_probe_frame_call[];

_Static_assert(offsetof(struct cpu, probe_slots) + PROBE_CPU_SLOTS * sizeof(uint64_t) < 4096,
	       "inline accumulators reach their per-CPU slots with a 13-bit offset");

static void origin(struct probe_patch_origins *o, const struct patch_buf *b, uint64_t orig_offset)
{
	if (o->n < PROBE_PATCH_ORIGINS_MAX)
		o->m[o->n++] = (struct probe_patch_origin){ (uint16_t)b->len, (uint16_t)orig_offset };
}

/* Inline code, then the call: one window for all the inline consumers. */
static void emit_inserted(struct patch_buf *b, const struct probe_patch_plan *plan)
{
	if (plan->ninline) {
		patch_emit_save(b, MIN_FRAME);
		for (unsigned i = 0; i < plan->ninline; i++) {
			const struct probe_patch_inline *c = &plan->inl[i];
			if (c->kind == PROBE_INLINE_COUNT)
				patch_emit_counter(b, c->counter);
			else
				patch_emit_accumulate(b, &c->slots, c->delta,
						      (uintptr_t)&sparc64_this_cpu);
		}
		patch_emit_restore(b);
	}
	if (plan->call_fn)
		patch_emit_frame_call(b, plan->site, plan->call_fn, plan->call_cookie,
				      (uintptr_t)sparc64_probe_frame_call);
}

void arch_probe_build_patch(struct patch_buf *b, const struct probe_patch_plan *plan,
			    struct probe_patch_origins *o)
{
	const struct cfg_function *f = cfg_function_at(plan->site);
	const void *fn = text_image_bytes(f->sym->addr);
	size_t words = f->sym->size / 4;
	const char *why;

	o->n = 0;
	if (plan->mechanism == PROBE_SITE_BREAKPOINT) {
		origin(o, b, 0);
		if (patch_out_of_line(b, fn, f->sym->addr, words, plan->site))
			b->overflow = true;	/* checked when the site was created */
		return;
	}
	if (plan->ninline || plan->call_fn) {
		origin(o, b, 0);
		emit_inserted(b, plan);
	}
	origin(o, b, 0);
	size_t relocated_at = b->len;
	why = patch_relocate(b, fn, f->sym->addr, words, plan->site);
	if (why)
		b->overflow = true;	/* checked when the site was created */
	else if (plan->length == 8 && b->len >= relocated_at + 8)
		o->m[o->n++] = (struct probe_patch_origin){ (uint16_t)(relocated_at + 4), 4 };
}

/* One text write of a step: len bytes of room at addr. */
static void write_op(struct text_poke_op *op, uint64_t addr, const uint8_t *room, size_t len)
{
	*op = (struct text_poke_op){ (void *)(uintptr_t)addr, room, len };
}

/*
 * A jump site that goes through its springboard: at step 3 the whole slot
 * if the site does not branch there yet, else only the slot's patch
 * address (one aligned doubleword: a CPU in the slot reads the old or the
 * new); at step 4 the branch to the slot.
 */
static bool springboard_step(unsigned step, struct probe_step_site *s, struct text_poke_op *op)
{
	uint32_t to_slot;
	bool live = patch_ba_a(&to_slot, s->addr, s->springboard) &&
		    sparc_word_at((const void *)(uintptr_t)s->addr) == to_slot;

	if (step == PROBE_STEP_BODY && !live) {
		patch_springboard(s->room.b, s->springboard, s->patch);
		write_op(op, s->springboard, s->room.b, PATCH_SPRINGBOARD_LEN);
		return true;
	}
	if (step == PROBE_STEP_BODY) {
		patch_springboard(s->room.b, s->springboard, s->patch);
		write_op(op, s->springboard + PATCH_SPRINGBOARD_TARGET,
			 s->room.b + PATCH_SPRINGBOARD_TARGET, 8);
		return true;
	}
	if (step == PROBE_STEP_ARM && !live) {
		sparc_word_put(s->room.b, to_slot);
		write_op(op, s->addr, s->room.b, 4);
		return true;
	}
	return false;
}

static bool step_site(unsigned step, struct probe_step_site *s, struct text_poke_op *op)
{
	bool jump = s->mechanism == PROBE_SITE_JUMP;
	bool remove = s->change == PROBE_CHANGE_REMOVE;
	uint32_t w;

	if (jump && !remove && s->springboard)
		return springboard_step(step, s, op);
	if (step == PROBE_STEP_BREAKPOINT && !jump && s->change != PROBE_CHANGE_REBUILD)
		w = remove ? sparc_word_at(s->orig) : patch_breakpoint_word();
	else if (step == PROBE_STEP_ARM && jump && remove)
		w = sparc_word_at(s->orig);
	else if (step == PROBE_STEP_ARM && jump) {
		/* A patch out of reach got a springboard when it was built. */
		if (!patch_ba_a(&w, s->addr, s->patch))
			panic("probe: the patch at 0x%llx is out of ba,a's reach of its site 0x%llx",
			      (unsigned long long)s->patch, (unsigned long long)s->addr);
	} else {
		return false;
	}
	sparc_word_put(s->room.b, w);
	write_op(op, s->addr, s->room.b, 4);
	return true;
}

size_t arch_probe_write_step(unsigned step, struct probe_step_site *sites, size_t n,
			     struct text_poke_op *ops)
{
	size_t k = 0;

	for (size_t i = 0; i < n; i++)
		if (sites[i].change != PROBE_CHANGE_NONE && step_site(step, &sites[i], &ops[k]))
			k++;
	return k;
}
