/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The x86-64 instruction decoder (arch/x86/insn_decode.c): for the bytes
 * at an address, the instruction's layout (prefixes, opcode, ModRM, SIB,
 * displacement, immediates), its control-flow class and branch target,
 * its RIP-relative operand, and the general registers and flags it reads
 * and writes. Plain C with no kernel dependencies: the host tools and
 * tests build the same file.
 *
 * Register sets are masks of INSN_REG(n) for the 16 general registers
 * (rax=0, rcx, rdx, rbx, rsp, rbp, rsi, rdi, r8 .. r15) and the flag
 * bits. A register written only in part (an 8- or 16-bit write) counts as
 * read as well, since the rest of it lives on.
 */
#ifndef ARCH_INSN_H
#define ARCH_INSN_H

#include <stdint.h>
#include <stddef.h>
#include <stdbool.h>

#define INSN_MAX_LENGTH 15

#define INSN_REG(n)     (1u << (n))
#define INSN_GPRS       0xffffu
#define INSN_FLAG_CF    (1u << 16)
#define INSN_FLAG_PF    (1u << 17)
#define INSN_FLAG_AF    (1u << 18)
#define INSN_FLAG_ZF    (1u << 19)
#define INSN_FLAG_SF    (1u << 20)
#define INSN_FLAG_OF    (1u << 21)
#define INSN_FLAG_DF    (1u << 22)
#define INSN_STATUS_FLAGS 0x3f0000u	/* CF PF AF ZF SF OF */
#define INSN_FLAGS      0x7f0000u
#define INSN_ALL_REGS   (INSN_GPRS | INSN_FLAGS)
#define INSN_NREGS      23

enum insn_reg {
	INSN_RAX, INSN_RCX, INSN_RDX, INSN_RBX, INSN_RSP, INSN_RBP, INSN_RSI, INSN_RDI,
	INSN_R8, INSN_R9, INSN_R10, INSN_R11, INSN_R12, INSN_R13, INSN_R14, INSN_R15,
};

enum insn_status {
	INSN_OK,
	INSN_INVALID,		/* not an instruction in 64-bit mode */
	INSN_TRUNCATED,		/* the bytes given end inside the instruction */
};

enum insn_cf {
	INSN_CF_NONE,		/* falls through */
	INSN_CF_JMP,		/* jmp rel8/rel32 */
	INSN_CF_JCC,		/* jcc rel8/rel32: target or fall through */
	INSN_CF_LOOP,		/* loop, loope, loopne, jrcxz: rel8 only */
	INSN_CF_XBEGIN,		/* xbegin rel32: abort handler or fall through */
	INSN_CF_CALL,		/* call rel32 */
	INSN_CF_JMP_INDIRECT,
	INSN_CF_CALL_INDIRECT,
	INSN_CF_RET,		/* ret, ret imm16 */
	INSN_CF_RET_FAR,
	INSN_CF_JMP_FAR,
	INSN_CF_CALL_FAR,
	INSN_CF_IRET,
	INSN_CF_SYSCALL,	/* syscall, sysenter: returns to the next instruction */
	INSN_CF_SYSRET,		/* sysret, sysexit: leaves */
	INSN_CF_INT,		/* int n, int1: trap, then the next instruction */
	INSN_CF_INT3,
	INSN_CF_HLT,
	INSN_CF_UD,		/* ud0, ud1, ud2: never falls through */
};

enum insn_encoding {
	INSN_LEGACY,
	INSN_VEX2,
	INSN_VEX3,
	INSN_EVEX,
	INSN_XOP,
	INSN_3DNOW,
};

/* Opcode maps: the legacy escapes, and the VEX/EVEX/XOP map numbers. */
enum insn_map {
	INSN_MAP_ONE = 0,	/* one-byte opcodes */
	INSN_MAP_0F = 1,
	INSN_MAP_0F38 = 2,
	INSN_MAP_0F3A = 3,
	INSN_MAP_EVEX5 = 5,
	INSN_MAP_EVEX6 = 6,
	INSN_MAP_XOP8 = 8,
	INSN_MAP_XOP9 = 9,
	INSN_MAP_XOPA = 10,
};

/*
 * What a form admitted in a sandboxed graft may write (arch/sfi.h): the
 * sfi= attribute of its line in arch/x86/opcodes.map.
 */
enum insn_sfi_write {
	INSN_SFI_WRITE_NONE,		/* no memory */
	INSN_SFI_WRITE_OPERAND,		/* its ModRM memory operand, sfi_write_size bytes at the EA */
	INSN_SFI_WRITE_PAIR,		/* cmpxchg8b/16b: sfi_write_size (8 or 16) bytes at the EA */
	INSN_SFI_WRITE_STACK,		/* push, call: sfi_write_size bytes below %rsp */
};

#define INSN_PFX_LOCK   0x01
#define INSN_PFX_REP    0x02	/* f3 */
#define INSN_PFX_REPNE  0x04	/* f2 */
#define INSN_PFX_OPSIZE 0x08	/* 66 */
#define INSN_PFX_ADSIZE 0x10	/* 67 */
#define INSN_PFX_SEG    0x20	/* a segment override; see insn.segment */

struct insn {
	uint64_t addr;		/* where it was decoded */
	uint8_t status;		/* enum insn_status */
	uint8_t length;
	uint8_t encoding;	/* enum insn_encoding */
	uint8_t map;		/* enum insn_map */
	uint8_t opcode;
	uint8_t opcode_offset;
	uint8_t prefixes;	/* INSN_PFX_* */
	uint8_t nprefixes;	/* legacy prefix bytes */
	uint8_t segment;	/* override prefix byte, or 0 */
	uint8_t rex;		/* REX byte in effect, or 0 */
	uint8_t vex[3];		/* the bytes after c4/c5/62/8f */
	uint8_t vex_vvvv;	/* VEX/EVEX/XOP register operand (0-15) */
	bool has_modrm;
	bool has_sib;
	uint8_t modrm, modrm_offset;
	uint8_t sib;
	uint8_t disp_size, disp_offset;	/* 0, 1, 2, 4 or 8 (moffs) bytes */
	uint8_t imm_size, imm_offset;	/* first immediate */
	uint8_t imm2_size;		/* second immediate (enter, extrq), right after */
	int64_t disp;
	int64_t imm;
	uint8_t operand_size;	/* 2, 4 or 8 (1 for byte forms) */
	uint8_t address_size;	/* 4 or 8 */
	uint8_t cf;		/* enum insn_cf */
	bool rip_relative;	/* memory operand is [rip + disp32] */
	bool has_memory;	/* has a memory operand (ModRM or implicit) */
	bool mem_read, mem_write;
	bool semantics_known;	/* false: registers and flags are the safe over-approximation */
	bool vendor_specific;	/* length or target depends on the CPU vendor */
	bool sfi_allowed;	/* its form is admitted in a sandboxed graft (arch/sfi.h) */
	bool mandatory_prefix;	/* its form was selected by a 66, f2 or f3 prefix */
	uint8_t sfi_write;	/* enum insn_sfi_write, when sfi_allowed */
	uint8_t sfi_write_size;	/* bytes it may write, when sfi_write is not NONE */
	uint8_t sfi_refusal;	/* index for insn_sfi_refusal, when not sfi_allowed */
	const char *invalid_why;	/* INSN_INVALID: why, when the length is still known */
	uint16_t mnemonic;	/* index for insn_mnemonic */
	uint64_t target;	/* branch target (direct branches), or rip-relative address */
	uint32_t regs_read;	/* INSN_REG / INSN_FLAG_* */
	uint32_t regs_written;
};

/*
 * insn_decode - decode the instruction at code[0 .. avail-1].
 * Arguments: in, filled in; code, the bytes; avail, how many may be read
 *   (never more are touched); addr, the address of code[0] (for targets).
 * Return value: in->status (INSN_OK when in->length bytes form a valid
 *   instruction). Caller's context: any; pure function.
 */
int insn_decode(struct insn *in, const uint8_t *code, size_t avail, uint64_t addr);

/* A name for the instruction ("mov", "jcc", "sse" for a family...). */
const char *insn_mnemonic(const struct insn *in);

/* Why a form is refused in a sandboxed graft (one line), or "" when it is not. */
const char *insn_sfi_refusal(const struct insn *in);

/* Name of register n (0-15) or of flag bit n (16-22). */
const char *insn_reg_name(unsigned n);

/* Whether execution can continue at the next instruction after one of class cf. */
static inline bool insn_cf_falls_through(uint8_t cf)
{
	switch (cf) {
	case INSN_CF_JMP: case INSN_CF_JMP_INDIRECT: case INSN_CF_RET: case INSN_CF_RET_FAR:
	case INSN_CF_JMP_FAR: case INSN_CF_IRET: case INSN_CF_SYSRET: case INSN_CF_UD:
		return false;
	default:
		return true;
	}
}

static inline bool insn_falls_through(const struct insn *in)
{
	return insn_cf_falls_through(in->cf);
}

/* Whether in->target is a branch destination (a direct branch or call). */
static inline bool insn_has_branch_target(const struct insn *in)
{
	return in->cf == INSN_CF_JMP || in->cf == INSN_CF_JCC || in->cf == INSN_CF_LOOP ||
	       in->cf == INSN_CF_XBEGIN || in->cf == INSN_CF_CALL;
}

/* Offset of the rip-relative displacement (valid when in->rip_relative). */
static inline unsigned insn_rip_disp_offset(const struct insn *in)
{
	return in->disp_offset;
}

/*
 * A jump table an indirect jump dispatches through, found by a backward
 * slice (arch/x86/jump_table.c).
 */
struct insn_jump_table {
	uint64_t table;		/* address of entry 0 */
	unsigned entry_size;	/* bytes per entry */
	unsigned entries;	/* how many, from the bounds check */
	bool relative;		/* entries are offsets from `base`, not addresses */
	uint64_t base;
};

/*
 * insn_find_jump_table - recognise `cmp $N, idx; ja default; ...;
 * jmp *table(, idx, 8)` (the form GCC emits for -mcmodel=kernel).
 * Arguments: jump, an indirect jmp; before[0 .. n-1], the instructions
 *   that precede it in address order, nearest last.
 * Return value: true with *jt filled in, false when no table is found
 *   (the jump is then unanalysable).
 */
bool insn_find_jump_table(const struct insn *jump, const struct insn *before, unsigned n,
			  struct insn_jump_table *jt);

#endif
