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

/*
 * cfg_summarise - the arch's summary of the instruction at addr
 *   (arch_insn_summarise), and at an sdt site the reads its enabled
 *   probe makes (ARCH_SDT_SITE_READS). Every summary the analysis keeps
 *   or solves liveness from comes from here.
 * Return value: 0, or arch_insn_summarise's error. Caller's context: any.
 */
int cfg_summarise(struct insn_summary *s, const uint8_t *code, size_t len, uint64_t addr);

/* One instruction as the analysis keeps it while building a function. */
struct cfg_insn {
	uint32_t offset;	/* from the function's start */
	struct insn_summary s;	/* the arch's summary (calls by the calling convention) */
};

/*
 * What a block reads before writing (use) and writes (def); a block with
 * a window shift (windowed) has no such pair and is solved instruction by
 * instruction from insns[first].
 */
struct cfg_block_effects {
	uint32_t use, def;
	uint32_t first;
	bool windowed;
};

/*
 * The delayed transfer whose last delay slot is insns[j], looking no
 * further back than insns[lo]: its index, or UINT32_MAX. Its late effects
 * apply after insns[j]. Compiles to nothing without delay slots.
 */
static inline uint32_t cfg_slots_end_at(const struct cfg_insn *insns, uint32_t lo, uint32_t j)
{
	for (uint32_t k = 1; k <= ARCH_DELAY_SLOTS_MAX && k <= j - lo; k++) {
		uint8_t slots = insns[j - k].s.delay_slots;
		if (slots == k)
			return j - k;
		if (slots > k)
			break;		/* a slot of it, not the last */
	}
	return UINT32_MAX;
}

/*
 * Late effects (a delayed call's calling convention) applied to a live
 * set after the transfer's last slot; reads_only when the slots are a
 * block of their own that a jump also enters (where the call's writes do
 * not happen: only its reads can be assumed).
 */
static inline uint32_t cfg_late_live_before(const struct insn_summary *s, uint32_t after,
					    bool reads_only)
{
	return s->late_reads | (reads_only ? after : after & ~s->late_writes);
}

static inline void effects_add_regs(struct cfg_block_effects *e, uint32_t reads, uint32_t writes)
{
	e->use |= reads & ~e->def;
	e->def |= writes;
}

static inline void effects_add(struct cfg_block_effects *e, const struct cfg_insn *ci)
{
	effects_add_regs(e, ci->s.reads, ci->s.writes);
	if (ci->s.window)
		e->windowed = true;
}

/* What the way out of b needs live: a return's, a tail call's, or everything. */
uint32_t cfg_block_exit_live(const struct cfg_block *b);

/*
 * The registers live before insns[i] of a block whose instructions are
 * insns[first .. last], given those live after the block; lo is the first
 * instruction that may be looked at for a transfer whose slots open the
 * block (its late effects count reads only there). before_at/after_at,
 * when not NULL, receive the sets around insns[at].
 */
uint32_t cfg_block_live(const struct cfg_insn *insns, uint32_t lo, uint32_t first, uint32_t last,
			uint32_t live_out, uint32_t at, uint32_t *before_at, uint32_t *after_at);

/*
 * The registers live around each of insns[first .. last] (arguments as
 * cfg_block_live's) into out[0 .. last - first], with their offsets.
 */
void cfg_block_live_each(const struct cfg_insn *insns, uint32_t lo, uint32_t first, uint32_t last,
			 uint32_t live_out, struct cfg_insn_live *out);

/* Keep every instruction of f and the registers live around it (f->insns), if memory allows. */
void cfg_keep_insns(struct cfg_function *f, const struct cfg_block_effects *effects,
		    const struct cfg_insn *insns);

/* The bytes of kernel text the analysis reads (the pristine image). */
const uint8_t *analysis_text(uint64_t addr);

/*
 * The len bytes of a jump table at addr, when it lies where the arch's
 * compiler puts them: read-only data, and text too when
 * ARCH_JUMP_TABLES_IN_TEXT (arch/analysis.h); NULL elsewhere (analysis.c).
 */
const uint8_t *analysis_table(uint64_t addr, uint64_t len);

/* Entry i of a table of size-byte entries, in the machine's byte order (ARCH_BIG_ENDIAN). */
static inline uint64_t cfg_table_entry(const uint8_t *table, unsigned size, unsigned i)
{
	const uint8_t *p = table + (size_t)i * size;
	uint64_t v = 0;
	for (unsigned k = 0; k < size; k++)
		v = v << 8 | p[ARCH_BIG_ENDIAN ? k : size - 1 - k];
	return v;
}

/*
 * cfg_build_function - blocks, edges, calls and liveness of f (f->sym set).
 * Return value: 0, or a negative errno with f->status saying why.
 */
int cfg_build_function(struct cfg_function *f, const uint8_t *code);

/* Fill live_in/live_out of f's blocks from their effects (liveness.c). */
void cfg_solve_liveness(struct cfg_function *f, const struct cfg_block_effects *effects,
			const struct cfg_insn *insns);

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
