/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The register sets of SPARC V9 as the structural analysis counts them
 * (the contract is scion/insn_summary.h; summaries come from
 * arch/insn_summary.h): the 31 integer registers of the current window
 * (g1-g7, o0-o7, l0-l7, i0-i7; %g0 is never live), numbered as the
 * decoder numbers them (arch/insn.h), what the V9 calling convention
 * (arch/abi.h) keeps live where control leaves a function, and the one
 * delay slot of SPARC's transfers. Condition codes, %y and the floating
 * point registers are not tracked (nothing the analysis serves needs a
 * free one).
 */
#ifndef ARCH_ANALYSIS_H
#define ARCH_ANALYSIS_H

#include <arch/insn.h>
#include <arch/abi.h>

/* Registers the analysis tracks: numbers 0 .. ARCH_NREGS - 1, names from arch_reg_name. */
#define ARCH_NREGS		INSN_NREGS
#define ARCH_REGS_ALL		INSN_GPRS

/* Every SPARC transfer but the traps has one delay slot. */
#define ARCH_DELAY_SLOTS_MAX	1

/* Jump tables: big-endian words; GCC puts them in .text, between functions. */
#define ARCH_BIG_ENDIAN		1
#define ARCH_JUMP_TABLES_IN_TEXT 1

/* Live where a function returns: results, the caller's window, %sp, the reserved globals. */
/*
 * What an sdt site's no-op reads (scion/sdt.h): its arguments' registers,
 * which an enabled probe's consumers read there. The no-op itself reads
 * nothing, so without this a register holding an argument would be dead
 * before the site and a patch upstream need not put it back.
 */
#define ARCH_SDT_SITE_READS	ABI_ARGUMENT_REGS
#define ARCH_LIVE_AT_RETURN	ABI_LIVE_AT_RETURN
/* Live at a tail call: the callee's arguments and return address, and the same. */
#define ARCH_LIVE_AT_TAIL_CALL	ABI_LIVE_AT_TAIL_CALL

#endif
