/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Where the window child (window_child.c) puts a graft's sandbox in a
 * host process, and where the tests that use it aim: one list of
 * addresses, shared by the SFI proof (sfi_proof.c) and the verifier's
 * fuzzer (tests/fuzz/fuzz_sfi_verify.c).
 *
 * Invariants the child and the tests rely on:
 *   - the text region lies in the bottom 2 GiB, aligned to its size (at
 *     most WINDOW_TEXT_MAX), so that a sign-extended imm32 (the masked
 *     branch's `or $TEXT, %r14`) can say its base;
 *   - the API entry and the exit gate are within rel32 of the text;
 *   - the window base is 4 GiB aligned and above ASan's shadow (the
 *     fuzzer runs under ASan), the reserve [base - 4 GiB, base + 8 GiB)
 *     holds nothing but the window's stack and the alias of the data;
 *   - the target page (the "kernel data" a hostile graft aims at) and
 *     the text lie outside the reserve, where the child maps everything
 *     read-only: a write there faults with the address, a read does not.
 */
#ifndef SFI_WINDOW_LAYOUT_H
#define SFI_WINDOW_LAYOUT_H

#include <arch/sfi.h>

#define WINDOW_PAGE          4096ull
#define WINDOW_TEXT          0x40000000ull
#define WINDOW_TEXT_MAX      8192ull
#define WINDOW_STUBS         (WINDOW_TEXT - 0x100000)	/* a page the graft never runs */
#define WINDOW_API           WINDOW_STUBS			/* an exported graft API entry */
#define WINDOW_GATE          (WINDOW_STUBS + 64)		/* the exit gate */
#define WINDOW_DATA          0x50000000ull
#define WINDOW_DATA_SIZE     4096ull
#define WINDOW_BASE          0x200000000000ull		/* W, %r15 while the graft runs */
#define WINDOW_STACK_TOP     (WINDOW_BASE + SFI_STACK_SIZE)
#define WINDOW_DATA_ALIAS    (WINDOW_BASE + (WINDOW_DATA & 0xffffffffull))
#define WINDOW_RESERVE_LO    (WINDOW_BASE - (SFI_WINDOW_STRIDE - SFI_WINDOW_SIZE))
#define WINDOW_RESERVE_HI    (WINDOW_BASE + SFI_WINDOW_STRIDE)
#define WINDOW_TARGET        0x300000000000ull		/* read-only "kernel data" */

/* The part of the user half the child can map: below and above it nothing can be. */
#define WINDOW_USER_LO       0x10000ull
#define WINDOW_USER_HI       0x7ffffffff000ull

static inline int window_in_reserve(unsigned long long addr)
{
	return addr >= WINDOW_RESERVE_LO && addr < WINDOW_RESERVE_HI;
}

#endif
