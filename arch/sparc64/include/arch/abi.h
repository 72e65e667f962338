/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The SPARC V9 (64-bit) calling convention as the structural analysis
 * assumes it at calls and returns, as register masks of arch/insn.h
 * (window-relative: g0-g7, o0-o7, l0-l7, i0-i7).
 *
 * A function starts in its caller's window (W0): it may use the outs and
 * the volatile globals; the locals and ins are the caller's and stay live
 * until it returns. After `save` it runs in a window of its own (W1),
 * where the caller's outs are its ins (i6 the caller's %sp, i7 the return
 * address); `restore` (or `return`) brings W0 back. Liveness is counted
 * in the window of the point it describes, so every set below is in W0's
 * terms (the window a return or a tail call leaves in).
 *
 * Calls are not analysed interprocedurally: a call reads the argument
 * registers o0-o5 and %sp, and clobbers o0-o5, o7 and the volatile
 * globals g1, g4, g5 (the kernel is built with -fno-ipa-ra, so no caller
 * counts on a callee sparing them). %g2 and %g3 (application registers) and %g6, %g7
 * (reserved for the system) are never assumed clobbered or free: they
 * are live everywhere. Integer results come back in o0-o3 (a 32-byte
 * structure at most).
 */
#ifndef ARCH_ABI_H
#define ARCH_ABI_H

#include <arch/insn.h>

#define ABI_ARGUMENT_REGS  (INSN_REG(INSN_O0) | INSN_REG(INSN_O1) | INSN_REG(INSN_O2) | \
			    INSN_REG(INSN_O3) | INSN_REG(INSN_O4) | INSN_REG(INSN_O5))
#define ABI_RETURN_REGS    (INSN_REG(INSN_O0) | INSN_REG(INSN_O1) | INSN_REG(INSN_O2) | \
			    INSN_REG(INSN_O3))
#define ABI_VOLATILE_GLOBALS (INSN_REG(INSN_G1) | INSN_REG(INSN_G4) | INSN_REG(INSN_G5))
#define ABI_RESERVED_GLOBALS (INSN_REG(INSN_G2) | INSN_REG(INSN_G3) | INSN_REG(INSN_G6) | \
			      INSN_REG(INSN_G7))
#define ABI_STACK_POINTER  INSN_REG(INSN_SP)
#define ABI_RETURN_ADDRESS INSN_REG(INSN_O7)	/* a call's link, W0's at a tail call */
/* What a callee clobbers (the call itself writes o7). */
#define ABI_CALLER_SAVED   (ABI_ARGUMENT_REGS | ABI_RETURN_ADDRESS | ABI_VOLATILE_GLOBALS)
/* Live everywhere: %sp and the globals compiled code leaves alone. */
#define ABI_ALWAYS_LIVE    (ABI_STACK_POINTER | ABI_RESERVED_GLOBALS)
/* The caller's own registers in W0: a callee never changes them. */
#define ABI_CALLER_WINDOW  (INSN_LOCALS | INSN_INS)

/* What a call reads, and what is live when a function returns (W0). */
#define ABI_CALL_READS     (ABI_ARGUMENT_REGS | ABI_ALWAYS_LIVE)
#define ABI_LIVE_AT_RETURN (ABI_RETURN_REGS | ABI_CALLER_WINDOW | ABI_ALWAYS_LIVE)
/* At a tail call (W0): the arguments, the return address, and what a return keeps. */
#define ABI_LIVE_AT_TAIL_CALL (ABI_ARGUMENT_REGS | ABI_RETURN_ADDRESS | ABI_CALLER_WINDOW | \
			       ABI_ALWAYS_LIVE)

#endif
