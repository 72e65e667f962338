/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The machine's half of outlining (kernel/codeadapt/outline.c): writing
 * a copy of an analysed function with its blocks in a chosen order, the
 * hot ones first and the cold ones after them, out of line. Each port
 * has arch/<arch>/outline.c; one that cannot copy functions refuses.
 */
#ifndef SCION_OUTLINE_ARCH_H
#define SCION_OUTLINE_ARCH_H

#include <scion/cfg.h>
#include <scion/probe_arch.h>
#include <stddef.h>
#include <stdint.h>

/* Where a copy is written and what the build says about it. */
struct outline_emit {
	uint8_t *code;			/* room for the code */
	size_t cap;
	uint64_t runs_at;		/* the address code[0] will run at */
	struct probe_patch_origin *map;	/* room for one origin per instruction of the function */
	unsigned map_cap;
	uint32_t *block_at;		/* room for one offset per block: where its copy starts */
	size_t len;			/* filled: bytes of code */
	unsigned nmap;			/* filled: origins, in code order */
	unsigned jumps_added;		/* filled: jumps for fall-throughs whose block moved */
	unsigned jumps_dropped;		/* filled: jmps to the block laid out next, left out */
	unsigned branches_inverted;	/* filled: jcc turned round so the next block is its
					   fall-through */
};

/*
 * arch_outline_build - Overview: write into e a copy of f whose blocks
 *   are laid out in the order given: every instruction copied or
 *   re-encoded so that it does the same from its new place (branches
 *   inside f re-targeted at the copies of their blocks, in their long
 *   forms, so the size does not depend on where the copy runs; calls
 *   kept as calls, so callees return into the copy; position-relative
 *   operands re-aimed), and a jump after every block whose fall-through
 *   successor is not laid out right after it; a jump to the block laid
 *   out next is left out, and a conditional branch to it is inverted
 *   (its fall-through moved away) so the block falls into it. The copy
 *   is decoded again and its branches checked before it is handed back.
 * Arguments: f, analysed with status CFG_OK; order[0 .. f->nblocks-1],
 *   a permutation of f's block indices whose first is block 0 (the
 *   entry); e, its room filled in (code, cap, runs_at, map, map_cap,
 *   block_at); why, set on failure.
 * Return value: 0 with e->len, e->nmap, e->block_at filled; -EINVAL with
 *   *why (one line) when f cannot be copied: an indirect jump, an
 *   instruction that cannot run elsewhere, a branch into the middle of a
 *   block, a fault fixup inside f; -ENOSPC when the room is too small;
 *   -ENOSYS on a port that does not copy functions.
 * Caller's context: thread, may sleep; reads f's instructions from the
 *   booted text image (probes in f do not show in the copy).
 */
int arch_outline_build(const struct cfg_function *f, const uint32_t *order,
		       struct outline_emit *e, const char **why);

#endif
