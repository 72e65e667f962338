/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The register sets of x86-64 as the structural analysis counts them
 * (the contract is scion/insn_summary.h; summaries come from
 * arch/insn_summary.h): the 16 general registers and the 7 flags of
 * arch/insn.h, numbered as the decoder numbers them, what the System V
 * calling convention (arch/abi.h) keeps live where control leaves a
 * function, and the delay slots x86 has (none).
 */
#ifndef ARCH_ANALYSIS_H
#define ARCH_ANALYSIS_H

#include <arch/insn.h>
#include <arch/abi.h>

/* Registers the analysis tracks: numbers 0 .. ARCH_NREGS - 1, names from arch_reg_name. */
#define ARCH_NREGS		INSN_NREGS
#define ARCH_REGS_ALL		INSN_ALL_REGS

/*
 * The most delay slots a transfer has on this machine (at most
 * INSN_DELAY_SLOTS_MAX): none, so the analysis's code for them compiles
 * away.
 */
#define ARCH_DELAY_SLOTS_MAX	0

/* Jump tables: little-endian 8-byte entries, in read-only data only (arch/x86/jump_table.c). */
#define ARCH_BIG_ENDIAN		0
#define ARCH_JUMP_TABLES_IN_TEXT 0

/* Live where a function returns: the return values, the callee-saved registers, rsp and DF. */
/*
 * What an sdt site's no-op reads (scion/sdt.h): its arguments' registers,
 * which an enabled probe's consumers read there. The no-op itself reads
 * nothing, so without this a register holding an argument would be dead
 * before the site and a patch upstream need not put it back.
 */
#define ARCH_SDT_SITE_READS	ABI_ARGUMENT_REGS
#define ARCH_LIVE_AT_RETURN	ABI_LIVE_AT_RETURN
/* Live at a tail call: the callee may read any general register (its arguments and more). */
#define ARCH_LIVE_AT_TAIL_CALL	(INSN_GPRS | ABI_ALWAYS_LIVE)

#endif
