/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Outlining (KernInst's first code adaptation): count how often each
 * basic block of a kernel function runs, build a copy of the function in
 * the patch arena with its cold blocks moved after all the hot ones, and
 * install it behind an unconditional redirect at the original's entry
 * (scion/codeadapt.h). The copy is built from the structural analysis
 * (scion/cfg.h) by the machine's half (scion/outline_arch.h); it lives
 * in patch memory (scion/probe_code.h), which maps every pc in it back
 * to the original instruction for backtraces and fault reports.
 *
 * A block is cold when its count is at most the threshold given (0 by
 * default: never ran while counted). The entry block is always laid out
 * first, whatever its count. While a function is outlined its calls run
 * the copy: probes past its entry see none of them.
 */
#ifndef SCION_OUTLINE_H
#define SCION_OUTLINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct probe_code;

/* A built copy (outline_build); freed by outline_free or, once installed, by its adaptation. */
struct outline_copy {
	uint64_t function;		/* the original's entry */
	char name[48];			/* its symbol */
	uint64_t entry;			/* the copy's entry: its first block, the entry
					   block's copy */
	uint64_t start, end;		/* [start, end): the copy's code */
	uint32_t nblocks, hot, cold;
	uint32_t jumps_added;		/* jumps put after blocks whose fall-through moved */
	uint32_t jumps_dropped;		/* jumps to the next block laid out, left out */
	uint32_t branches_inverted;	/* jcc turned round so the hot path falls through */
	uint32_t *block_at;		/* per original block index: its copy's offset from entry */
	struct probe_code *mem;
};

/*
 * outline_build - Overview: build a copy of the function at `function`
 *   with the blocks cold[i] marks after all the others (each group in
 *   original order).
 * Arguments: function, the entry of an analysed kernel function;
 *   cold[0 .. nblocks-1], per block in address order (NULL: all hot, a
 *   plain copy); out, set on success; err/errlen, one line on failure.
 * Return value: 0; -EINVAL (not a function's entry, analysis not CFG_OK,
 *   .text.noprobe, or the arch refused: jump table, unrelocatable
 *   instruction, fault fixup), -ENOMEM, -ENOSPC (too large to copy),
 *   -ENOSYS (a port without outlining).
 * Caller's context: thread, may sleep; not in probe context.
 */
int outline_build(uint64_t function, const bool *cold, struct outline_copy **out, char *err,
		  size_t errlen);

/*
 * outline_cold_from_counts - cold[i] for every block whose count is at
 *   most threshold (UINT64_MAX, an unknown count, is never cold unless
 *   the threshold is). Caller's context: any.
 */
static inline void outline_cold_from_counts(const uint64_t *counts, uint32_t nblocks,
					    uint64_t threshold, bool *cold)
{
	for (uint32_t i = 0; i < nblocks; i++)
		cold[i] = counts[i] <= threshold;
}

/* Free a copy nothing can run in (never installed, or its adaptation released it). */
void outline_free(struct outline_copy *c);

/*
 * outline_count - Overview: count every block of the function for ms
 *   milliseconds while the system runs, by permanent counting splices
 *   (a coverage run that is never reaped, scion/coverage.h), then take
 *   them out. counts[i] is block i's; a block no splice could go in
 *   counts as UINT64_MAX (hot: unknown).
 * Arguments: function, an analysed function's entry; ms; counts, room for
 *   nblocks; nblocks, the function's; err/errlen.
 * Return value: 0; -EBUSY (a coverage run is on), -EINVAL, -ENOMEM.
 * Caller's context: thread, may sleep.
 */
int outline_count(uint64_t function, unsigned ms, uint64_t *counts, uint32_t nblocks, char *err,
		  size_t errlen);

/*
 * outline_install - Overview: install c (from outline_build) as an
 *   adaptation of its function (codeadapt_install, CODEADAPT_OUTLINE);
 *   from then on c belongs to the adaptation, freed when it is released.
 * Return value: the adaptation's id (> 0), or a negative errno with err
 *   (c has been freed then too).
 * Caller's context: thread, may sleep.
 */
int outline_install(struct outline_copy *c, char *err, size_t errlen);

/* The longest count outline_function takes (ms). */
#define OUTLINE_MAX_MS 600000

/*
 * outline_function - check that the function copies at all, then count,
 *   build and install (the shell command's work): cold is a count <=
 *   threshold.
 * Return value: the adaptation's id; a negative errno with err.
 * Caller's context: thread, may sleep.
 */
int outline_function(uint64_t function, unsigned ms, uint64_t threshold, uint32_t *hot,
		     uint32_t *cold, uint32_t *size, char *err, size_t errlen);

#endif
