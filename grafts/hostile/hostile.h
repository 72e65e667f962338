/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Hostile graft objects for the sandbox's tests: each is one graft
 * whose code is written in assembly and built without the sandboxing
 * step (grafts.mk), as a graft object from anywhere may be. Everything
 * follows the scheme of arch/x86/include/arch/sfi.h except the one
 * offence the file is named for, so the verifier must refuse it at
 * load, naming that instruction and its offset; none may run
 * (tests/integration/test_sfi.py lists what each must be refused for).
 * The exception is full_stack.c, which breaks no rule: it is hostile at
 * run time, and the kernel must survive what it does.
 *
 * HOSTILE_GRAFT(name, body): the graft `name` for bcache.evict whose
 * entry function is the assembly in body, at offset 0 of its text, in
 * bundle mode. HOSTILE_METHOD(name, body): the same for test.method(a,
 * b), whose arguments a test chooses (an address to aim at, a mode).
 */
#ifndef HOSTILE_H
#define HOSTILE_H

#include <graft/bcache.h>
#include <graft/test.h>

int hostile_entry(void);

/* The guarded return of the scheme (the text's base and mask come from the loader). */
#define HOSTILE_RETURN \
	"popq %r14\n" \
	".bundle_lock\n" \
	"andq $__sfi_text_mask, %r14\n" \
	"orq $__sfi_text_base, %r14\n" \
	"jmp *%r14\n" \
	".bundle_unlock\n"

#define HOSTILE_CODE(body) \
	__asm__(".pushsection .text\n" \
		".bundle_align_mode 5\n" \
		".p2align 5\n" \
		".globl hostile_entry\n" \
		".type hostile_entry, @function\n" \
		"hostile_entry:\n" \
		body \
		".p2align 5\n" \
		".bundle_align_mode 0\n" \
		".popsection\n")

#define HOSTILE_GRAFT(gname, body) \
	HOSTILE_CODE(body); \
	GRAFT_METHOD(bcache_evict, gname, 1, hostile_entry)

/* The same for test.method(a, b), for objects a test runs with verification skipped. */
#define HOSTILE_METHOD(gname, body) \
	HOSTILE_CODE(body); \
	GRAFT_METHOD(test_method, gname, 1, (graft_fn_test_method *)(uintptr_t)hostile_entry)

#endif
