/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Probes on x86-64: the sizes and names the portable probe machinery
 * uses (the contract is scion/probe_arch.h; the code is
 * arch/x86/probe_site.c and arch/x86/splice.c). A jump probe writes jmp
 * rel32 over the instructions covering its 5 bytes; a breakpoint probe
 * writes int3, one byte, which traps with the pc after it.
 */
#ifndef ARCH_PROBE_H
#define ARCH_PROBE_H

#include <stdint.h>
#include <arch/patch.h>
#include <arch/trap.h>

/* Bytes a jump probe's branch covers (jmp rel32). */
#define ARCH_PROBE_JUMP_LEN	PATCH_JUMP_LEN

/*
 * The most bytes a jump probe detours: the instructions that cover its
 * 5 bytes, each at most 15 long, refused beyond 16 (a longer region
 * would be a long instruction that starts in the first 5 bytes; none in
 * compiled code).
 */
#define ARCH_PROBE_REGION_MAX	16

/* No springboards: jmp rel32 reaches every patch (arch/mmu.h). */
#define ARCH_PROBE_SPRINGBOARD_LEN	0

/* A patch can send the CPU elsewhere behind a guard (PROBE_REDIRECT, patch_emit_redirect). */
#define ARCH_PROBE_REDIRECTS	true
/* Arguments a redirect's guard can test (those passed in registers). */
#define ARCH_PROBE_REDIRECT_ARGS	6

/* Bytes a breakpoint probe writes (int3). */
#define ARCH_PROBE_BREAKPOINT_LEN	1

/* What people call the breakpoint probe on this machine (`probe enable ... int3`). */
#define ARCH_PROBE_BREAKPOINT_NAME	"int3"
/* The same, with its article, for the reasons `probe info` gives. */
#define ARCH_PROBE_A_BREAKPOINT		"an int3"

/*
 * Forget the instructions probe_site.c keeps decoded (its regions'), so
 * that a test can compare what a cold decode builds with a kept one.
 * Caller holds probe_mutex (probe_run_locked).
 */
void arch_probe_forget_decoded(void);

/* Room for what one site writes at one step: a byte or a jump's tail. */
struct arch_probe_bytes {
	uint8_t b[ARCH_PROBE_REGION_MAX];
};

/* The breakpoint a trap frame trapped on: int3 leaves the pc after its one byte. */
static inline uint64_t arch_probe_breakpoint_addr(const struct trap_frame *frame)
{
	return trap_frame_pc(frame) - 1;
}

#endif
