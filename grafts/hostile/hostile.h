/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Hostile graft objects for the sandbox's tests: each is one graft for
 * bcache.evict whose code is written in assembly and built without the
 * sandboxing step (grafts.mk), as a graft object from anywhere may be.
 * Everything follows the scheme of arch/x86/include/arch/sfi.h except
 * the one offence the file is named for, so the verifier must refuse
 * it at load, naming that instruction and its offset; none may run.
 *
 * HOSTILE_GRAFT(name, body): the graft `name` whose entry function is
 * the assembly in body, at offset 0 of its text, in bundle mode.
 */
#ifndef HOSTILE_H
#define HOSTILE_H

#include <graft/bcache.h>

int hostile_entry(void);

/* The guarded return of the scheme (the text's base and mask come from the loader). */
#define HOSTILE_RETURN \
	"popq %r14\n" \
	".bundle_lock\n" \
	"andq $__sfi_text_mask, %r14\n" \
	"orq $__sfi_text_base, %r14\n" \
	"jmp *%r14\n" \
	".bundle_unlock\n"

#define HOSTILE_GRAFT(gname, body) \
	__asm__(".pushsection .text\n" \
		".bundle_align_mode 5\n" \
		".p2align 5\n" \
		".globl hostile_entry\n" \
		".type hostile_entry, @function\n" \
		"hostile_entry:\n" \
		body \
		".p2align 5\n" \
		".bundle_align_mode 0\n" \
		".popsection\n"); \
	GRAFT_METHOD(bcache_evict, gname, 1, hostile_entry)

#endif
