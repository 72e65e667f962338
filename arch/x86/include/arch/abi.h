/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The calling convention the structural analysis assumes at calls and
 * returns (System V AMD64), as register masks of arch/insn.h.
 *
 * Calls are not analysed interprocedurally: a call reads the argument
 * registers, rax (the vector count of varargs calls) and rsp, and
 * clobbers every caller-saved register and the status flags. That holds
 * for every C function (the kernel is built with -fno-ipa-ra, without
 * which GCC keeps values in caller-saved registers across calls of
 * functions it knows spare them); the kernel's few assembly functions
 * that are called follow the same convention, but for arch_switch_stacks
 * (arch/context.h), which leaves the callee-saved registers but %rbp as
 * the thread switched back from had them. Its one caller, an asm
 * statement, declares them clobbered, so the compiler keeps nothing in
 * them across it: the analysis, taking them as kept, only finds more of
 * them live than are, which is safe.
 */
#ifndef ARCH_ABI_H
#define ARCH_ABI_H

#include <arch/insn.h>

#define ABI_ARGUMENT_REGS  (INSN_REG(INSN_RDI) | INSN_REG(INSN_RSI) | INSN_REG(INSN_RDX) | \
			    INSN_REG(INSN_RCX) | INSN_REG(INSN_R8) | INSN_REG(INSN_R9))
#define ABI_RETURN_REGS    (INSN_REG(INSN_RAX) | INSN_REG(INSN_RDX))
#define ABI_CALLEE_SAVED   (INSN_REG(INSN_RBX) | INSN_REG(INSN_RBP) | INSN_REG(INSN_R12) | \
			    INSN_REG(INSN_R13) | INSN_REG(INSN_R14) | INSN_REG(INSN_R15))
#define ABI_CALLER_SAVED   (INSN_REG(INSN_RAX) | INSN_REG(INSN_RCX) | INSN_REG(INSN_RDX) | \
			    INSN_REG(INSN_RSI) | INSN_REG(INSN_RDI) | INSN_REG(INSN_R8) | \
			    INSN_REG(INSN_R9) | INSN_REG(INSN_R10) | INSN_REG(INSN_R11) | \
			    INSN_STATUS_FLAGS)
#define ABI_STACK_POINTER  INSN_REG(INSN_RSP)
/* DF is clear at every call and return and nobody tracks it: keep it live. */
#define ABI_ALWAYS_LIVE    (ABI_STACK_POINTER | INSN_FLAG_DF)

/* What a call reads, and what is live when a function returns. */
#define ABI_CALL_READS     (ABI_ARGUMENT_REGS | INSN_REG(INSN_RAX) | ABI_ALWAYS_LIVE)
#define ABI_LIVE_AT_RETURN (ABI_RETURN_REGS | ABI_CALLEE_SAVED | ABI_ALWAYS_LIVE)

#endif
