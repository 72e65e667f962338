/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Static probe sites on x86-64 (see scion/sdt.h, which binds the
 * arguments): a 5-byte no-op, nopl 0x0(%rax,%rax,1), the size of the jmp
 * rel32 that replaces it when the probe is enabled. Arguments go in the
 * first argument registers of the SysV ABI, where trap_frame_arg() finds
 * them.
 */
#ifndef ARCH_SDT_H
#define ARCH_SDT_H

#include <scion/compiler.h>

/* Bytes of the no-op at a site ({disp8} keeps the assembler from shortening it). */
#define ARCH_SDT_SITE_LEN 5
#define ARCH_SDT_NOP "%{disp8%} nopl 0x0(%%rax,%%rax,1)"
/* The assembler's 8-byte data directive, for the table entry. */
#define ARCH_SDT_XWORD ".quad"
#define ARCH_SDT_ARG_REGS "rdi", "rsi", "rdx", "rcx", "r8", "r9"

/*
 * arch_sdt_gate_open - Overview: whether a gated site's gate is open
 *   (scion/sdt.h): one compare of the byte in memory and a branch, where
 *   an atomic load would load it into a register and test it (one more
 *   instruction at every gated site). The asm is volatile, so the byte
 *   is read each time the code passes.
 * Arguments: gate, the site's byte. Return value: nonzero: open.
 * Caller's context: any.
 */
static __always_inline bool arch_sdt_gate_open(const uint8_t *gate)
{
	__asm__ goto("cmpb $0, %0\n\tjne %l[open]" :: "m"(*gate) : "cc" : open);
	return false;
open:
	return true;
}

#endif
