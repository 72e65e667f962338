// SPDX-License-Identifier: BSD-2-Clause
/*
 * Live registers: a backward dataflow over each function's blocks, and
 * the registers live around any single instruction on demand.
 *
 * live_out(B) = the union of live_in over B's successors, plus what B's
 * way out needs, as the arch's calling convention says (arch/analysis.h):
 * a return keeps the return and callee-saved registers, a tail call
 * every general register, an unresolved jump or a fall past the
 * function's end everything. live_in(B) = use(B) | (live_out(B) &
 * ~def(B)), or, for a block with a register-window shift (SPARC's save,
 * restore, return), the same instruction by instruction backwards with
 * the arch's map across the shift. A delayed call's calling convention
 * (late effects) applies after its last slot. The stack pointer (and on
 * x86 the direction flag) is always live. Iterates to the fixpoint; the
 * lattice is finite and every transfer is monotone, so it ends.
 *
 * Once solved, the sets around every instruction are kept with its offset
 * (cfg_function.insns), so that enabling probes on thousands of sites
 * asks about each without decoding its block again (issue 28);
 * cfg_live_at_decoded still decodes, for tests that compare the two.
 */
#include <scion/cfg.h>
#include <scion/insn_summary.h>
#include <scion/mm.h>
#include <scion/errno.h>
#include <arch/analysis.h>
#include "analysis_internal.h"

uint32_t cfg_block_exit_live(const struct cfg_block *b)
{
	uint32_t live = 0;

	if (b->end_kind & CFG_END_RETURN)
		live |= ARCH_LIVE_AT_RETURN;
	if (b->end_kind & CFG_END_TAIL_CALL)
		live |= ARCH_LIVE_AT_TAIL_CALL;
	if (b->end_kind & (CFG_END_UNRESOLVED | CFG_END_FALLS_OUT))
		live |= ARCH_REGS_ALL;
	return live;
}

uint32_t cfg_block_live(const struct cfg_insn *insns, uint32_t lo, uint32_t first, uint32_t last,
			uint32_t live, uint32_t at, uint32_t *before_at, uint32_t *after_at)
{
	for (uint32_t i = last + 1; i-- > first;) {
		uint32_t t = cfg_slots_end_at(insns, lo, i);
		if (t != UINT32_MAX)
			live = cfg_late_live_before(&insns[t].s, live, t < first);
		if (i == at && after_at)
			*after_at = live;
		live = insn_live_before(&insns[i].s, live);
		if (i == at && before_at)
			*before_at = live;
	}
	return live;
}

void cfg_block_live_each(const struct cfg_insn *insns, uint32_t lo, uint32_t first, uint32_t last,
			 uint32_t live, struct cfg_insn_live *out)
{
	/* cfg_block_live's walk, recording at every instruction. */
	for (uint32_t i = last + 1; i-- > first;) {
		uint32_t t = cfg_slots_end_at(insns, lo, i);
		if (t != UINT32_MAX)
			live = cfg_late_live_before(&insns[t].s, live, t < first);
		out[i - first].offset = insns[i].offset;
		out[i - first].after = live;
		live = insn_live_before(&insns[i].s, live);
		out[i - first].before = live;
	}
}

void cfg_keep_insns(struct cfg_function *f, const struct cfg_block_effects *effects,
		    const struct cfg_insn *insns)
{
	f->insns = kmalloc((f->ninsns ? f->ninsns : 1) * sizeof(*f->insns));
	if (!f->insns)
		return;
	for (uint32_t i = 0; i < f->nblocks; i++) {
		const struct cfg_block *b = &f->blocks[i];
		/* The block before too, as cfg_live_at_decoded looks at it. */
		bool prev = ARCH_DELAY_SLOTS_MAX && i > 0 && b[-1].end == b->start;
		uint32_t first = effects[i].first;
		cfg_block_live_each(insns, prev ? effects[i - 1].first : first, first,
				    first + b->ninsns - 1, b->live_out, &f->insns[first]);
	}
}

void cfg_solve_liveness(struct cfg_function *f, const struct cfg_block_effects *effects,
			const struct cfg_insn *insns)
{
	for (bool changed = true; changed;) {
		changed = false;
		for (uint32_t i = f->nblocks; i-- > 0;) {
			struct cfg_block *b = &f->blocks[i];
			const struct cfg_block_effects *e = &effects[i];
			uint32_t out = cfg_block_exit_live(b);
			for (uint32_t s = 0; s < b->nsucc; s++)
				out |= f->blocks[f->succ[b->first_succ + s]].live_in;
			uint32_t in = e->windowed ?
				cfg_block_live(insns, 0, e->first, e->first + b->ninsns - 1, out,
					       UINT32_MAX, NULL, NULL) :
				e->use | (out & ~e->def);
			if (in != b->live_in || out != b->live_out) {
				b->live_in = in;
				b->live_out = out;
				changed = true;
			}
		}
	}
}

/*
 * Summarise the instructions of [start, end) into insns from index n on;
 * the new count, or UINT32_MAX when they do not decode.
 */
static uint32_t summarise_range(struct cfg_insn *insns, uint32_t n, uint64_t start, uint64_t end)
{
	const uint8_t *code = analysis_text(start);
	for (uint64_t off = 0; start + off < end; n++) {
		if (cfg_summarise(&insns[n].s, code + off, end - start - off, start + off))
			return UINT32_MAX;
		insns[n].offset = (uint32_t)off;
		off += insns[n].s.length;
	}
	return n;
}

/* The function and block that hold addr, or NULL when it is in none analysed. */
static const struct cfg_block *block_of(uint64_t addr, const struct cfg_function **f)
{
	*f = cfg_function_at(addr);
	if (!*f || (*f)->status != CFG_OK)
		return NULL;
	return cfg_block_at(*f, addr);
}

/* cfg_live_at_decoded's work once addr's function f and block b are found. */
static int live_decoded(const struct cfg_function *f, const struct cfg_block *b, uint64_t addr,
			uint32_t *before, uint32_t *after)
{
	/*
	 * On a machine with delay slots, the block before too: the transfer
	 * whose slots open this block, if any, is there.
	 */
	const struct cfg_block *prev = ARCH_DELAY_SLOTS_MAX && b > f->blocks &&
		b[-1].end == b->start ? &b[-1] : NULL;
	uint32_t room = b->ninsns + (prev ? prev->ninsns : 0);
	struct cfg_insn *insns = kmalloc(room * sizeof(*insns));
	if (!insns)
		return -ENOMEM;
	uint32_t first = prev ? summarise_range(insns, 0, prev->start, prev->end) : 0;
	uint32_t n = first == UINT32_MAX ? first : summarise_range(insns, first, b->start, b->end);
	int found = -1;
	for (uint32_t i = first; n != UINT32_MAX && i < n; i++)
		if (b->start + insns[i].offset == addr)
			found = (int)i;
	if (found >= 0)
		cfg_block_live(insns, 0, first, n - 1, b->live_out, (uint32_t)found, before, after);
	kfree(insns);
	return found < 0 ? -ENOENT : 0;
}

int cfg_live_at_decoded(uint64_t addr, uint32_t *before, uint32_t *after)
{
	const struct cfg_function *f;
	const struct cfg_block *b = block_of(addr, &f);
	return b ? live_decoded(f, b, addr, before, after) : -ENOENT;
}

int cfg_live_at(uint64_t addr, uint32_t *before, uint32_t *after)
{
	const struct cfg_function *f;
	const struct cfg_block *b = block_of(addr, &f);
	if (!b)
		return -ENOENT;
	bool known;
	const struct cfg_insn_live *in = cfg_insn_at(f, b, addr, &known);
	if (!known)
		return live_decoded(f, b, addr, before, after);
	if (!in)
		return -ENOENT;
	if (before)
		*before = in->before;
	if (after)
		*after = in->after;
	return 0;
}

int cfg_block_control(const struct cfg_block *b, uint64_t *addr, struct insn_summary *s)
{
	/* The last INSN_DELAY_SLOTS_MAX + 1 instructions, oldest first, in a ring. */
	struct cfg_insn ring[INSN_DELAY_SLOTS_MAX + 1];
	const uint8_t *code = analysis_text(b->start);
	uint64_t off = 0;
	uint32_t n = 0;

	while (b->start + off < b->end) {
		struct cfg_insn *ci = &ring[n % (INSN_DELAY_SLOTS_MAX + 1)];
		if (cfg_summarise(&ci->s, code + off, b->end - b->start - off, b->start + off))
			return -EINVAL;
		ci->offset = (uint32_t)off;
		off += ci->s.length;
		n++;
	}
	if (!n)
		return -EINVAL;
	/* Unroll the ring into order, then pick as the builder does. */
	uint32_t k = n < INSN_DELAY_SLOTS_MAX + 1 ? n : INSN_DELAY_SLOTS_MAX + 1;
	struct cfg_insn last[INSN_DELAY_SLOTS_MAX + 1];
	for (uint32_t i = 0; i < k; i++)
		last[i] = ring[(n - k + i) % (INSN_DELAY_SLOTS_MAX + 1)];
	const struct cfg_insn *c = &last[cfg_control_of(last, 0, k - 1)];
	*addr = b->start + c->offset;
	*s = c->s;
	return 0;
}
