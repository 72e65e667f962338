/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Probes on SPARC V9: the sizes and names the portable probe machinery
 * uses (the contract is scion/probe_arch.h; the code is
 * arch/sparc64/probe_site.c and splice.c). A splice writes one `ba,a`
 * over one instruction with one aligned store (KernInst); at a CTI its
 * patch runs the delay slot too, so the region is the CTI and its slot.
 * A breakpoint probe writes `ta 0x70`, which traps with TPC at itself.
 */
#ifndef ARCH_PROBE_H
#define ARCH_PROBE_H

#include <stdint.h>
#include <arch/patch.h>
#include <arch/trap.h>

/* Bytes a splice writes (ba,a). */
#define ARCH_PROBE_JUMP_LEN	PATCH_JUMP_LEN

/* The most bytes a splice detours: a CTI and its delay slot. */
#define ARCH_PROBE_REGION_MAX	8

/* A springboard slot (arch/sparc64/springboard.c; its words: patch_springboard). */
#define ARCH_PROBE_SPRINGBOARD_LEN	PATCH_SPRINGBOARD_LEN

/* No redirecting patches yet (scion/codeadapt.h refuses adaptations here). */
#define ARCH_PROBE_REDIRECTS	false
/* Arguments a redirect's guard can test (those passed in registers). */
#define ARCH_PROBE_REDIRECT_ARGS	0

/* Bytes a breakpoint probe writes (ta). */
#define ARCH_PROBE_BREAKPOINT_LEN	4

#define ARCH_PROBE_BREAKPOINT_NAME	"ta"
#define ARCH_PROBE_A_BREAKPOINT		"a ta"

/* Room for what one site writes at one step: a word, or a springboard slot. */
struct arch_probe_bytes {
	uint8_t b[ARCH_PROBE_SPRINGBOARD_LEN];
};

/* A trap instruction leaves TPC at itself. */
static inline uint64_t arch_probe_breakpoint_addr(const struct trap_frame *frame)
{
	return trap_frame_pc(frame);
}

#endif
