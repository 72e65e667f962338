// SPDX-License-Identifier: BSD-2-Clause
/*
 * arch_insn_jump_table on SPARC V9 (the contract is scion/insn_summary.h):
 * the switch tables GCC emits for the kernel's code model, found by a
 * slice over the instructions before the indirect jump:
 *
 *     cmp    J, N              bound: entries 0 .. N
 *     bgu    default           (or bleu to the table's side)
 *     sllx   J, 2, I           index * 4 (often in the branch's slot)
 *     sethi  %hi(T), B
 *     or     B, %lo(T), B      the table's address
 *     lduw   [B + I], X        a 32-bit absolute entry
 *     jmp    X
 *
 * Each register is followed back to its last writer before its reader;
 * anything else (the base computed before the slice, a relative table of
 * position-independent code) is not a table: the jump stays unresolved.
 * The table itself (big-endian words, in .text between functions:
 * arch/analysis.h) is read and checked by the portable code.
 *
 * In a folder of its own because it calls the decoder, which the sparc64
 * kernel does not link yet (arch.mk compiles every C file of
 * arch/sparc64/ itself): the kernel build adds it with kernel/analysis.
 * Pure; no locks.
 */
#include <scion/insn_summary.h>
#include <arch/insn.h>

#define SLICE 16	/* cfg_build.c's limit */
#define NONE  (-1)
#define INDEX_SHIFT 2	/* 4-byte entries */

static bool named(const struct insn *in, const char *name)
{
	const char *m = insn_mnemonic(in);
	while (*m && *m == *name)
		m++, name++;
	return *m == *name;
}

/* The last of in[0 .. from-1] that writes reg, or NONE. */
static int last_writer(const struct insn *in, int from, unsigned reg)
{
	for (int k = from - 1; k >= 0; k--)
		if (in[k].regs_written & INSN_REG(reg))
			return k;
	return NONE;
}

bool arch_insn_jump_table(const uint8_t *fn, uint64_t fn_addr, uint64_t fn_size,
			  const uint32_t *before, unsigned n, uint32_t jump,
			  struct insn_jump_table_summary *jt)
{
	struct insn in[SLICE], j;

	if (n > SLICE)
		n = SLICE;
	for (unsigned i = 0; i < n; i++)
		insn_decode_bytes(&in[i], fn + before[i], fn_size - before[i], fn_addr + before[i]);
	insn_decode_bytes(&j, fn + jump, fn_size - jump, fn_addr + jump);
	if (j.status != INSN_OK || j.cf != INSN_CF_JMP_INDIRECT ||
	    (j.imm_form ? j.imm != 0 : j.rs2 != INSN_G0))
		return false;
	int ld = last_writer(in, (int)n, j.rs1);
	if (ld == NONE || in[ld].mem != INSN_MEM_LOAD || in[ld].mem_size != 4 || in[ld].imm_form ||
	    !named(&in[ld], "lduw"))
		return false;
	unsigned base = in[ld].rs1, index = in[ld].rs2;
	int lo = last_writer(in, ld, base);
	if (lo == NONE || !named(&in[lo], "or") || !in[lo].imm_form || in[lo].rs1 != base)
		return false;
	int hi = last_writer(in, lo, base);
	if (hi == NONE || !named(&in[hi], "sethi"))
		return false;
	int shift = last_writer(in, ld, index);
	if (shift == NONE || !named(&in[shift], "sllx") || !in[shift].imm_form ||
	    in[shift].imm != INDEX_SHIFT)
		return false;
	unsigned j_reg = in[shift].rs1;
	/* The bound: cmp J, N before the shift, J unchanged between, then bgu/bleu. */
	int cmp = NONE;
	for (int k = shift - 1; k >= 0 && cmp == NONE; k--) {
		if (named(&in[k], "subcc") && in[k].rd == INSN_G0 && in[k].imm_form &&
		    in[k].rs1 == j_reg && in[k].imm >= 0)
			cmp = k;
		else if (in[k].regs_written & INSN_REG(j_reg))
			return false;
	}
	if (cmp == NONE)
		return false;
	bool bounded = false;
	for (int k = cmp + 1; k < (int)n; k++)
		bounded |= in[k].cf == INSN_CF_BRANCH && (named(&in[k], "bgu") || named(&in[k], "bleu"));
	if (!bounded)
		return false;
	*jt = (struct insn_jump_table_summary){
		.table = (uint64_t)(uint32_t)in[hi].imm + (uint64_t)(int64_t)in[lo].imm,
		.entry_size = 4,
		.entries = (unsigned)in[cmp].imm + 1,
	};
	return true;
}
