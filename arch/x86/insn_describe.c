// SPDX-License-Identifier: BSD-2-Clause
/*
 * The x86 half of the `insn` shell command (kernel/analysis/cmd_analysis.c
 * has the rest): one instruction as the decoder reads it, its bytes,
 * prefixes, REX, ModRM and SIB, displacement and immediate, target, the
 * decoder's control-flow class and the registers and flags it reads and
 * writes. The contract is arch_insn_describe in scion/insn_summary.h.
 */
#include <scion/insn_summary.h>
#include <scion/cfg.h>
#include <scion/symtab.h>
#include <scion/printk.h>
#include <scion/format.h>
#include <scion/errno.h>
#include <arch/insn.h>

static const char *cf_name(uint8_t cf)
{
	static const char *const names[] = {
		"none", "jmp", "jcc", "loop", "xbegin", "call", "jmp indirect", "call indirect",
		"ret", "far ret", "far jmp", "far call", "iret", "syscall", "sysret", "int", "int3",
		"hlt", "ud",
	};
	return cf < sizeof(names) / sizeof(names[0]) ? names[cf] : "?";
}

int arch_insn_describe(uint64_t addr, uint64_t avail)
{
	char regs[160], sym[96], bytes[3 * INSN_MAX_LENGTH + 1];
	struct insn in;

	insn_decode(&in, (const uint8_t *)(uintptr_t)addr, avail, addr);
	size_t n = 0;
	for (unsigned i = 0; i < in.length; i++)
		n += (size_t)snprintf(bytes + n, sizeof(bytes) - n, "%s%02x", i ? " " : "",
				      ((const uint8_t *)(uintptr_t)addr)[i]);
	printk("0x%llx %s: %s\n", (unsigned long long)addr, ksym_format(addr, sym, sizeof(sym)),
	       n ? bytes : "");
	if (in.status != INSN_OK) {
		printk("  %s%s%s\n", in.status == INSN_INVALID ? "invalid instruction" :
		       "instruction runs past the end of the function",
		       in.invalid_why ? ": " : "", in.invalid_why ? in.invalid_why : "");
		return -EINVAL;
	}
	printk("  %s, %u bytes, map %u opcode 0x%02x, operand size %u%s\n", insn_mnemonic(&in),
	       in.length, in.map, in.opcode, in.operand_size,
	       in.semantics_known ? "" : " (effects over-approximated)");
	printk("  prefixes 0x%02x (%u legacy), rex 0x%02x", in.prefixes, in.nprefixes, in.rex);
	if (in.has_modrm)
		printk(", modrm 0x%02x at +%u (mod %u reg %u rm %u)", in.modrm, in.modrm_offset,
		       in.modrm >> 6, (in.modrm >> 3) & 7, in.modrm & 7);
	if (in.has_sib)
		printk(", sib 0x%02x", in.sib);
	printk("\n");
	if (in.disp_size)
		printk("  displacement %lld (%u bytes at +%u)%s\n", (long long)in.disp, in.disp_size,
		       in.disp_offset, in.rip_relative ? ", rip-relative" : "");
	if (in.imm_size)
		printk("  immediate %lld (%u bytes at +%u)\n", (long long)in.imm, in.imm_size,
		       in.imm_offset);
	if (in.rip_relative || insn_has_branch_target(&in))
		printk("  %s 0x%llx %s\n", in.rip_relative ? "refers to" : "target",
		       (unsigned long long)in.target, ksym_format(in.target, sym, sizeof(sym)));
	printk("  control flow: %s%s\n", cf_name(in.cf),
	       insn_falls_through(&in) ? "" : " (does not fall through)");
	printk("  reads: %s\n", cfg_format_regs(in.regs_read, regs, sizeof(regs)));
	printk("  writes: %s\n", cfg_format_regs(in.regs_written, regs, sizeof(regs)));
	if (in.has_memory)
		printk("  memory: %s%s%s\n", in.mem_read ? "read " : "", in.mem_write ? "write" : "",
		       !in.mem_read && !in.mem_write ? "address only" : "");
	return 0;
}
