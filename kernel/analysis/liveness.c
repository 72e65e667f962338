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
 * ~def(B)). The stack pointer (and on x86 the direction flag) is always
 * live. Iterates to the fixpoint; the lattice is finite, so it ends.
 */
#include <scion/cfg.h>
#include <scion/insn_summary.h>
#include <scion/mm.h>
#include <scion/errno.h>
#include <arch/analysis.h>
#include "analysis_internal.h"

static uint32_t exit_live(const struct cfg_block *b)
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

void cfg_solve_liveness(struct cfg_function *f, const struct cfg_block_effects *effects)
{
	for (bool changed = true; changed;) {
		changed = false;
		for (uint32_t i = f->nblocks; i-- > 0;) {
			struct cfg_block *b = &f->blocks[i];
			uint32_t out = exit_live(b);
			for (uint32_t s = 0; s < b->nsucc; s++)
				out |= f->blocks[f->succ[b->first_succ + s]].live_in;
			uint32_t in = effects[i].use | (out & ~effects[i].def);
			if (in != b->live_in || out != b->live_out) {
				b->live_in = in;
				b->live_out = out;
				changed = true;
			}
		}
	}
}

int cfg_live_at(uint64_t addr, uint32_t *before, uint32_t *after)
{
	const struct cfg_function *f = cfg_function_at(addr);
	if (!f || f->status != CFG_OK)
		return -ENOENT;
	const struct cfg_block *b = cfg_block_at(f, addr);
	if (!b)
		return -ENOENT;

	struct cfg_insn *insns = kmalloc(b->ninsns * sizeof(*insns));
	if (!insns)
		return -ENOMEM;
	const uint8_t *code = analysis_text(b->start);
	uint64_t off = 0;
	int found = -1;
	for (uint32_t i = 0; i < b->ninsns; i++) {
		arch_insn_summarise(&insns[i].s, code + off, b->end - b->start - off, b->start + off);
		insns[i].offset = (uint32_t)off;
		if (b->start + off == addr)
			found = (int)i;
		off += insns[i].s.length;
	}
	uint32_t live = b->live_out;
	for (int i = (int)b->ninsns - 1; i >= 0; i--) {
		if (i == found)
			*after = live;
		live = insns[i].s.reads | (live & ~insns[i].s.writes);
		if (i == found)
			*before = live;
	}
	kfree(insns);
	return found < 0 ? -ENOENT : 0;
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
		if (arch_insn_summarise(&ci->s, code + off, b->end - b->start - off, b->start + off))
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
