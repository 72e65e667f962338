/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The decoder's opcode tables (generated from arch/x86/opcodes.map by
 * arch/x86/tools/gen_x86_opcodes.py into build/gen/x86_opcodes.c) and the codes
 * their fields use. Private to the decoder.
 */
#ifndef ARCH_X86_OPCODES_H
#define ARCH_X86_OPCODES_H

#include <stdint.h>

/* What part of the ModRM byte an entry is selected by. */
enum x86_match {
	X86_MATCH_ANY,		/* the whole opcode */
	X86_MATCH_REG,		/* ModRM.reg == reg */
	X86_MATCH_REG_MEM,	/* ModRM.reg == reg and mod != 3 */
	X86_MATCH_REG_REG,	/* ModRM.reg == reg and mod == 3 */
	X86_MATCH_MODRM,	/* the whole ModRM byte == reg */
	X86_MATCH_MEM,		/* mod != 3 */
	X86_MATCH_REGFORM,	/* mod == 3 */
};

enum x86_prefix_req {
	X86_PFX_ANY, X86_PFX_NP, X86_PFX_66, X86_PFX_F3, X86_PFX_F2,
};

/* Immediate and offset kinds. */
enum x86_imm {
	X86_IMM_NONE,
	X86_IMM_B,		/* 8 bits */
	X86_IMM_W,		/* 16 bits */
	X86_IMM_Z,		/* 16 or 32 bits by operand size */
	X86_IMM_V,		/* 16, 32 or 64 bits (mov r64, imm64) */
	X86_IMM_JB,		/* rel8 */
	X86_IMM_JZ,		/* rel16/rel32 */
	X86_IMM_MOFFS,		/* absolute address: 4 or 8 bytes by address size */
};

/* Operand descriptor: kind | size << 2 | access << 6. */
#define X86_OPK_NONE  0
#define X86_OPK_GPR   1	/* general register (or, for rm, memory) */
#define X86_OPK_OTHER 2	/* segment/control/debug/vector register (or memory) */
#define X86_OPK_MEM   3	/* memory only */
#define X86_OP_KIND(d)   ((d) & 3)
#define X86_OP_SIZE(d)   (((d) >> 2) & 15)
#define X86_OP_ACCESS(d) (((d) >> 6) & 3)
#define X86_ACC_R 1
#define X86_ACC_W 2

/* Operand sizes. */
enum x86_size {
	X86_SZ_NONE, X86_SZ_B, X86_SZ_W, X86_SZ_D, X86_SZ_Q, X86_SZ_V, X86_SZ_Y, X86_SZ_Z,
	X86_SZ_P, X86_SZ_S, X86_SZ_X,
};

/* Attributes. */
#define X86_A_MODRM    0x0001
#define X86_A_I64      0x0002
#define X86_A_D64      0x0004
#define X86_A_F64      0x0008
#define X86_A_STRING   0x0010
#define X86_A_NOACCESS 0x0020
#define X86_A_UNKNOWN  0x0040	/* effects not modelled ("x" in the map) */
#define X86_A_REGONLY  0x0080
#define X86_A_NOP90    0x0100
#define X86_A_FLAGS_CC 0x0200	/* reads the flags of the condition in the opcode */
#define X86_A_ZERO_IDIOM 0x0400	/* xor/sub reg, reg: does not read reg */
#define X86_A_SFI      0x0800	/* admitted in a sandboxed graft (arch/sfi.h); see sfi_write */
#define X86_A_BYTE     0x1000	/* every sized operand is a byte: the operand size is 1 */

struct x86_opcode {
	uint16_t mnemonic;
	uint16_t attrs;
	uint8_t match;		/* enum x86_match */
	uint8_t reg;		/* ModRM.reg, or the whole ModRM byte */
	uint8_t prefix;		/* enum x86_prefix_req */
	uint8_t imm1, imm2;	/* enum x86_imm */
	uint8_t cf;		/* enum insn_cf */
	uint8_t op_reg;		/* operand in ModRM.reg */
	uint8_t op_rm;		/* operand in ModRM.rm */
	uint8_t op_opc;		/* operand in the opcode's low bits */
	uint8_t mem;		/* implicit memory access (X/Y/O operands): X86_ACC_* */
	uint8_t flags_read;	/* bits of INSN_FLAG_* >> 16 */
	uint8_t flags_written;
	uint8_t flags_maybe;	/* written only when a shift count is not 0 */
	uint16_t imp_read;	/* implicit general registers read (8/16-bit writes too) */
	uint16_t imp_written;	/* implicit registers written (8/16/32/64-bit) */
	uint16_t imp_written_v;	/* written at operand size: partial when 16-bit */
	uint8_t sfi_write;	/* enum insn_sfi_write: the memory it may write, when X86_A_SFI */
	uint8_t sfi_refusal;	/* why it is refused in a sandboxed graft: x86_sfi_refusals[] */
};

/* Entries of map m for opcode o: x86_opcodes[x86_opcode_index[m][o] .. [m][o + 1]). */
extern const struct x86_opcode x86_opcodes[];
extern const uint16_t x86_opcode_index[4][257];
extern const char *const x86_mnemonics[];
extern const unsigned x86_mnemonic_count;
/* [sfi-refusals] of the map; entry 0 is "" (admitted, or invalid in 64-bit mode). */
extern const char *const x86_sfi_refusals[];
/* Bit n set: VEX/EVEX map 1 opcode n carries an 8-bit immediate. */
extern const uint8_t x86_vex_map1_imm8[32];

#endif
