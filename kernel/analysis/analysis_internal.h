/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Interfaces between the files of kernel/analysis. Instructions reach
 * them only as the arch's summaries (scion/insn_summary.h).
 */
#ifndef KERNEL_ANALYSIS_INTERNAL_H
#define KERNEL_ANALYSIS_INTERNAL_H

#include <scion/cfg.h>
#include <scion/errno.h>
#include <arch/analysis.h>

/* One instruction as the analysis keeps it while building a function. */
struct cfg_insn {
	uint32_t offset;	/* from the function's start */
	struct insn_summary s;	/* the arch's summary (calls by the calling convention) */
};

/* What a block reads before writing (use) and writes (def). */
struct cfg_block_effects {
	uint32_t use, def;
};

static inline void effects_add(struct cfg_block_effects *e, const struct cfg_insn *ci)
{
	e->use |= ci->s.reads & ~e->def;
	e->def |= ci->s.writes;
}

/* The bytes of kernel text the analysis reads (the pristine image). */
const uint8_t *analysis_text(uint64_t addr);

/*
 * cfg_build_function - blocks, edges, calls and liveness of f (f->sym set).
 * Return value: 0, or a negative errno with f->status saying why.
 */
int cfg_build_function(struct cfg_function *f, const uint8_t *code);

/* Fill live_in/live_out of f's blocks from their effects (liveness.c). */
void cfg_solve_liveness(struct cfg_function *f, const struct cfg_block_effects *effects);

/*
 * The last instruction that runs before the transfer at insns[i] takes
 * effect: i itself, or its last delay slot (no further than insns[n - 1]).
 * Inline, like cfg_control_of, so that on a machine without delay slots
 * (ARCH_DELAY_SLOTS_MAX 0) both come to i and last at no cost.
 */
static inline uint32_t cfg_transfer_end(const struct cfg_insn *insns, uint32_t i, uint32_t n)
{
	uint32_t last = i + (ARCH_DELAY_SLOTS_MAX ? insns[i].s.delay_slots : 0);
	return last < n ? last : n - 1;
}

/*
 * The instruction among insns[first .. last] that decides how a block
 * ending at last ends: last itself, or a block-ending transfer whose
 * delay slots run up to last.
 */
static inline uint32_t cfg_control_of(const struct cfg_insn *insns, uint32_t first, uint32_t last)
{
	for (uint32_t k = 1; k <= last - first && k <= ARCH_DELAY_SLOTS_MAX; k++) {
		const struct insn_summary *s = &insns[last - k].s;
		if (s->delay_slots == k && insn_class_ends_block(s->cls))
			return last - k;
		if (s->delay_slots >= k)
			break;		/* last is a delay slot of a transfer that does not end blocks */
	}
	return last;
}

static inline int fail_nomem(struct cfg_function *f)
{
	f->status = CFG_NO_MEMORY;
	f->problem_addr = f->sym->addr;
	return -ENOMEM;
}

#endif
