// SPDX-License-Identifier: BSD-2-Clause
/*
 * The sparc64 half of the `insn` shell command (kernel/analysis/
 * cmd_analysis.c has the rest): one instruction word as the SPARC V9
 * decoder reads it: the word and its fields, the delay slot and annul
 * bit, the branch's prediction and target, the window shift, the memory
 * access and its ASI, the condition codes and the integer registers it
 * reads and writes. The contract is arch_insn_describe in
 * scion/insn_summary.h.
 */
#include <scion/insn_summary.h>
#include <scion/cfg.h>
#include <scion/symtab.h>
#include <scion/printk.h>
#include <scion/errno.h>
#include <arch/insn.h>

static const char *cf_name(uint8_t cf)
{
	static const char *const names[INSN_CF_COUNT] = {
		[INSN_CF_NONE] = "none", [INSN_CF_BRANCH] = "conditional branch",
		[INSN_CF_BRANCH_ALWAYS] = "branch always", [INSN_CF_BRANCH_NEVER] = "branch never",
		[INSN_CF_FBRANCH] = "floating-point branch", [INSN_CF_BRANCH_REG] = "register branch",
		[INSN_CF_CALL] = "call", [INSN_CF_CALL_INDIRECT] = "indirect call",
		[INSN_CF_JMP_INDIRECT] = "indirect jump", [INSN_CF_RET] = "return (ret/retl)",
		[INSN_CF_RETURN] = "return (window restored)", [INSN_CF_DONE_RETRY] = "done/retry",
		[INSN_CF_TRAP] = "conditional trap", [INSN_CF_TRAP_ALWAYS] = "trap always",
		[INSN_CF_ILLTRAP] = "illtrap",
	};
	return cf < INSN_CF_COUNT && names[cf] ? names[cf] : "?";
}

static const char *window_name(uint8_t w)
{
	static const char *const names[] = {
		[INSN_WIN_NONE] = NULL, [INSN_WIN_SAVE] = "save (CWP + 1)",
		[INSN_WIN_RESTORE] = "restore (CWP - 1)", [INSN_WIN_RETURN] = "return (CWP - 1)",
		[INSN_WIN_FLUSHW] = "flushw (spills the other windows)",
		[INSN_WIN_SAVED] = "saved (spill bookkeeping)",
		[INSN_WIN_RESTORED] = "restored (fill bookkeeping)",
	};
	return w < sizeof(names) / sizeof(names[0]) ? names[w] : NULL;
}

static const char *mem_name(uint8_t m)
{
	static const char *const names[] = {
		[INSN_MEM_NONE] = NULL, [INSN_MEM_LOAD] = "load", [INSN_MEM_STORE] = "store",
		[INSN_MEM_ATOMIC] = "atomic (read and written)",
		[INSN_MEM_PREFETCH] = "prefetch (address only)", [INSN_MEM_FLUSH] = "flush (address only)",
	};
	return m < sizeof(names) / sizeof(names[0]) ? names[m] : NULL;
}

int arch_insn_describe(uint64_t addr, uint64_t avail)
{
	char regs[200], sym[96];
	struct insn in;

	insn_decode_bytes(&in, (const uint8_t *)(uintptr_t)addr, avail, addr);
	printk("0x%llx %s: %08x\n", (unsigned long long)addr, ksym_format(addr, sym, sizeof(sym)),
	       in.status == INSN_TRUNCATED ? 0 : in.word);
	if (in.status != INSN_OK) {
		printk("  %s%s%s\n", in.status == INSN_INVALID ? "invalid instruction" :
		       "instruction runs past the end of the function",
		       in.invalid_why ? ": " : "", in.invalid_why ? in.invalid_why : "");
		return -EINVAL;
	}
	/* The register fields this form uses, by the decoder's map. */
	printk("  %s", insn_mnemonic(&in));
	if (in.operands & (INSN_OPD_RD_W | INSN_OPD_RD_R))
		printk(", rd %%%s%s", insn_reg_name(in.rd), in.operands & INSN_OPD_PAIR ? " (pair)" : "");
	if (in.operands & (INSN_OPD_RS1 | INSN_OPD_ADDR_RS1))
		printk(", rs1 %%%s", insn_reg_name(in.rs1));
	if ((in.operands & (INSN_OPD_RS2 | INSN_OPD_ADDR)) && !in.imm_form)
		printk(", rs2 %%%s", insn_reg_name(in.rs2));
	if (in.imm_form || (in.operands & (INSN_OPD_IMM22 | INSN_OPD_SIMM13 | INSN_OPD_CONST22)))
		printk(", immediate %d", in.imm);
	printk("%s\n", in.privileged ? ", privileged" : "");
	printk("  control flow: %s%s%s%s\n", cf_name(in.cf),
	       in.delayed ? ", one delay slot" : "", in.annul ? ", annulled" : "",
	       in.has_prediction ? (in.predict_taken ? ", predicted taken" : ", predicted not taken")
				 : "");
	if (insn_has_branch_target(&in))
		printk("  target 0x%llx %s (%u-bit displacement %lld)\n",
		       (unsigned long long)in.target, ksym_format(in.target, sym, sizeof(sym)),
		       in.disp_bits, (long long)in.disp);
	if (window_name(in.window))
		printk("  window: %s\n", window_name(in.window));
	if (mem_name(in.mem)) {
		printk("  memory: %s, %u bytes", mem_name(in.mem), in.mem_size);
		if (in.asi != INSN_ASI_NONE)
			printk(", ASI 0x%02x", in.asi);
		else if (in.asi_reg)
			printk(", ASI from %%asi");
		printk("\n");
	}
	if (in.cc_read || in.cc_written)
		printk("  condition codes: read 0x%x, written 0x%x (icc 1, xcc 2, fcc0.. 4..)\n",
		       in.cc_read, in.cc_written);
	printk("  reads: %s\n", cfg_format_regs(in.regs_read, regs, sizeof(regs)));
	printk("  writes: %s\n", cfg_format_regs(in.regs_written, regs, sizeof(regs)));
	return 0;
}
