/* SPDX-License-Identifier: BSD-2-Clause */
/* Interfaces between the files of kernel/analysis. */
#ifndef KERNEL_ANALYSIS_INTERNAL_H
#define KERNEL_ANALYSIS_INTERNAL_H

#include <scion/cfg.h>
#include <scion/errno.h>

/* One instruction as the analysis keeps it while building a function. */
struct cfg_insn {
	uint32_t offset;	/* from the function's start */
	uint8_t length;
	uint8_t cf;		/* enum insn_cf */
	uint32_t reads, writes;	/* with calls summarised by the ABI */
	uint64_t target;
};

/* What a block reads before writing (use) and writes (def). */
struct cfg_block_effects {
	uint32_t use, def;
};

static inline void effects_add(struct cfg_block_effects *e, const struct cfg_insn *ci)
{
	e->use |= ci->reads & ~e->def;
	e->def |= ci->writes;
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

/* An instruction summarised as the analysis sees it (calls by the ABI). */
void cfg_summarise(const void *insn, struct cfg_insn *ci, uint32_t offset);

static inline int fail_nomem(struct cfg_function *f)
{
	f->status = CFG_NO_MEMORY;
	f->problem_addr = f->sym->addr;
	return -ENOMEM;
}

#endif
