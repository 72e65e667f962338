/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Structural analysis of the running kernel (KernInst's start-up
 * analysis): for every function of the runtime symbol table, its basic
 * blocks, control-flow edges, call sites, jump tables and the registers
 * live at each block entry (kernel/analysis/).
 *
 * The analysis reads instructions only through the arch's summaries
 * (scion/insn_summary.h). Calls are summarised by the calling
 * convention, not followed. Jumps to outside the function are tail
 * calls; indirect jumps are resolved when a jump table is found and
 * otherwise marked unanalysable (everything is then assumed live
 * there). Register sets are the arch's masks (arch/analysis.h).
 *
 * The analysis runs once, on first use, under a mutex; its results are
 * read-only afterwards.
 */
#ifndef SCION_CFG_H
#define SCION_CFG_H

#include <scion/compiler.h>
#include <scion/symtab.h>
#include <scion/insn_summary.h>

/* How a block ends, beyond its edges. */
#define CFG_END_RETURN       0x01	/* returns */
#define CFG_END_TAIL_CALL    0x02	/* jumps to another function */
#define CFG_END_UNRESOLVED   0x04	/* indirect jump with no table found */
#define CFG_END_JUMP_TABLE   0x08	/* indirect jump through a resolved table */
#define CFG_END_STOP         0x10	/* nothing follows (INSN_CLASS_STOP) */
#define CFG_END_FALLS_OUT    0x20	/* falls past the end of the function */

struct cfg_block {
	uint64_t start, end;		/* [start, end) */
	uint32_t ninsns;
	uint32_t first_succ;		/* index into cfg_function.succ */
	uint16_t nsucc;
	uint8_t end_kind;		/* CFG_END_* */
	uint32_t live_in;		/* registers live at entry */
	uint32_t live_out;
	uint32_t first_insn;		/* its first in cfg_function.insns */
};

/* An instruction of an analysed function and the registers live around it. */
struct cfg_insn_live {
	uint32_t offset;		/* from the function's start */
	uint32_t before, after;		/* as cfg_live_at gives them */
};

struct cfg_call {
	uint64_t site;			/* address of the call instruction */
	uint64_t target;		/* 0 for an indirect call */
};

enum cfg_status {
	CFG_OK,
	CFG_UNDECODABLE,		/* an instruction does not decode */
	CFG_BAD_TARGET,			/* a branch lands inside an instruction */
	CFG_NO_MEMORY,
};

struct cfg_function {
	const struct ksym *sym;
	uint8_t status;			/* enum cfg_status */
	uint64_t problem_addr;		/* where the status was decided */
	uint32_t ninsns;
	uint32_t nblocks;
	struct cfg_block *blocks;	/* in address order */
	uint32_t nsucc;
	uint32_t *succ;			/* successor block indices */
	uint32_t ncalls;
	struct cfg_call *calls;
	uint32_t njump_tables;
	uint32_t nunresolved;
	/*
	 * Every instruction (ninsns, block by block), kept so that asking
	 * about one (cfg_insn_at, cfg_live_at) decodes nothing; NULL when
	 * there was no memory for it (those calls then decode the block).
	 */
	struct cfg_insn_live *insns;
};

struct cfg_totals {
	uint32_t functions, analysed, failed;
	uint64_t blocks, insns, bytes, edges, calls;
	uint32_t jump_tables, unresolved;
	uint64_t cycles;		/* cycle counter ticks the analysis took */
};

/*
 * cfg_analyse_kernel - analyse every function (once; later calls return
 * at once). Return value: 0, or -ENOMEM.
 * Caller's context: thread, may sleep.
 */
int cfg_analyse_kernel(void);

/* Forget the results (for benchmarks that time a fresh analysis). */
void cfg_forget(void);

/* The analysed function containing addr, or NULL. Analyses first if needed. */
const struct cfg_function *cfg_function_at(uint64_t addr);

void cfg_get_totals(struct cfg_totals *t);

/* Call fn for every function the analysis failed on. */
void cfg_foreach_failure(void (*fn)(const struct cfg_function *f));

/*
 * The block of f containing addr, or NULL. Inline, like cfg_insn_at:
 * enabling fbt::: asks several times per site, and a call would itself
 * hit the probes already enabled on these functions (issue 28).
 */
static inline const struct cfg_block *cfg_block_at(const struct cfg_function *f, uint64_t addr)
{
	uint32_t lo = 0, hi = f->nblocks;

	while (lo < hi) {
		uint32_t mid = (lo + hi) / 2;
		if (f->blocks[mid].end <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < f->nblocks && f->blocks[lo].start <= addr)
		return &f->blocks[lo];
	return NULL;
}

/*
 * cfg_live_at - registers live before and after the instruction at addr.
 * Return value: 0; -ENOENT when addr is in no analysed function or is
 *   not the start of one of its instructions.
 * Caller's context: thread (may trigger the analysis).
 */
int cfg_live_at(uint64_t addr, uint32_t *before, uint32_t *after);

/*
 * cfg_live_at_decoded - cfg_live_at computed afresh from the block's
 * bytes, without what the analysis kept (for tests that compare the two).
 */
int cfg_live_at_decoded(uint64_t addr, uint32_t *before, uint32_t *after);

/*
 * cfg_insn_at - the instruction of block b (of f) that starts at addr:
 * kept, or NULL when none starts there. *known is false when f kept no
 * instructions (no memory): the caller must then decode the block.
 * Caller's context: any.
 */
static inline const struct cfg_insn_live *cfg_insn_at(const struct cfg_function *f,
						       const struct cfg_block *b, uint64_t addr,
						       bool *known)
{
	*known = f->insns != NULL;
	if (!f->insns || addr < b->start || addr >= b->end)
		return NULL;
	uint32_t off = (uint32_t)(addr - f->sym->addr);
	uint32_t lo = b->first_insn, end = b->first_insn + b->ninsns, hi = end;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (f->insns[mid].offset < off)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < end && f->insns[lo].offset == off ? &f->insns[lo] : NULL;
}

const char *cfg_status_name(enum cfg_status s);

/*
 * cfg_block_control - the instruction that decides how block b ends: its
 * last, or the transfer whose delay slots end the block. A block made of
 * split-off delay slots (an annulled branch's, or a slot that is a
 * branch target: cfg_build.c) reports its own last instruction; its
 * transfer ends the block before it.
 * Arguments: b, a block of an analysed function; addr and s, filled in.
 * Return value: 0, or -EINVAL if the block does not decode (it did when
 *   it was analysed: only if the text image changed under it).
 * Caller's context: any thread.
 */
int cfg_block_control(const struct cfg_block *b, uint64_t *addr, struct insn_summary *s);

/* The arch's names of the registers in mask, space-separated, into buf; "-" when empty. */
const char *cfg_format_regs(uint32_t mask, char *buf, size_t size);

#endif
