// SPDX-License-Identifier: BSD-2-Clause
/*
 * Host tests of the x86-64 decoder's fields beyond what the objdump oracle
 * checks (lengths and targets): registers and flags read and written,
 * control-flow classes, memory access, invalid and truncated input.
 */
#include "host_test.h"
#include <arch/insn.h>
#include <string.h>

#define R(n) INSN_REG(INSN_##n)
#define CASE(name) extern const uint8_t name[], name##_end[]

CASE(mov_rbx_rax); CASE(mov_bl_al); CASE(mov_ebx_eax); CASE(mov_bx_ax); CASE(add_rbx_rax);
CASE(adc_rbx_rax); CASE(inc_rax); CASE(jne_far); CASE(jl_near); CASE(call_rel);
CASE(ret_plain); CASE(ret_imm); CASE(jmp_rax); CASE(jmp_rip); CASE(lea_sib);
CASE(mov_rip_load); CASE(mov_rip_store_imm); CASE(push_rbx); CASE(pop_r12); CASE(rep_movsb);
CASE(cmpxchg_rcx_mem); CASE(div_rcx); CASE(xor_eax_eax); CASE(movabs_imm); CASE(ud2_case);
CASE(syscall_case); CASE(cpuid_case); CASE(shl_cl); CASE(shl_one); CASE(shl_imm4); CASE(rcl_imm4); CASE(shl_imm0); CASE(setne_al);
CASE(cmovge_case); CASE(jrcxz_case); CASE(loop_case); CASE(int3_case); CASE(hlt_case);
CASE(mov_cr3); CASE(vaddps_case); CASE(evex_case); CASE(nop_long); CASE(pause_case);
CASE(xchg_r8); CASE(r12_base); CASE(r13_base); CASE(index_r12); CASE(endbr_case);
CASE(push_es); CASE(rexw_data16_call); CASE(data16_jmp); CASE(too_long); CASE(rex_vex);
CASE(movzx_al_esp); CASE(movzx_ah_edi); CASE(movsx_sil_edi);

#define ADDR 0x400000ull

static bool decode(struct host_test_ctx *t, struct insn *in, const uint8_t *start,
		   const uint8_t *end, const char *what)
{
	size_t n = (size_t)(end - start);
	insn_decode(in, start, n, ADDR);
	if (in->status != INSN_OK || in->length != n) {
		host_fail(t, __FILE__, __LINE__, "%s: status %d length %u, expected OK length %zu",
			  what, in->status, in->length, n);
		return false;
	}
	return true;
}

#define DECODE(in, name) decode(t, &(in), name, name##_end, #name)

struct effects_case {
	const char *name;
	const uint8_t *start, *end;
	uint32_t reads, writes;
	uint8_t cf;
};

#define EFFECTS(n, r, w, c) { #n, n, n##_end, (r), (w), (c) }

HOST_TEST(insn_register_effects)
{
	static const struct effects_case cases[] = {
		EFFECTS(mov_rbx_rax, R(RBX), R(RAX), INSN_CF_NONE),
		/* 8- and 16-bit writes keep the rest of the register: read too. */
		EFFECTS(mov_bl_al, R(RBX) | R(RAX), R(RAX), INSN_CF_NONE),
		EFFECTS(mov_bx_ax, R(RBX) | R(RAX), R(RAX), INSN_CF_NONE),
		/* 32-bit writes zero the upper half: a full write. */
		EFFECTS(mov_ebx_eax, R(RBX), R(RAX), INSN_CF_NONE),
		EFFECTS(add_rbx_rax, R(RAX) | R(RBX), R(RAX) | INSN_STATUS_FLAGS, INSN_CF_NONE),
		EFFECTS(adc_rbx_rax, R(RAX) | R(RBX) | INSN_FLAG_CF, R(RAX) | INSN_STATUS_FLAGS,
			INSN_CF_NONE),
		/* inc leaves CF alone. */
		EFFECTS(inc_rax, R(RAX), R(RAX) | (INSN_STATUS_FLAGS & ~INSN_FLAG_CF), INSN_CF_NONE),
		EFFECTS(jne_far, INSN_FLAG_ZF, 0, INSN_CF_JCC),
		EFFECTS(jl_near, INSN_FLAG_SF | INSN_FLAG_OF, 0, INSN_CF_JCC),
		EFFECTS(call_rel, R(RSP), R(RSP), INSN_CF_CALL),
		EFFECTS(ret_plain, R(RSP), R(RSP), INSN_CF_RET),
		EFFECTS(ret_imm, R(RSP), R(RSP), INSN_CF_RET),
		EFFECTS(jmp_rax, R(RAX), 0, INSN_CF_JMP_INDIRECT),
		EFFECTS(jmp_rip, 0, 0, INSN_CF_JMP_INDIRECT),
		EFFECTS(lea_sib, R(RBX) | R(RCX), R(RDX), INSN_CF_NONE),
		EFFECTS(push_rbx, R(RBX) | R(RSP), R(RSP), INSN_CF_NONE),
		EFFECTS(pop_r12, R(RSP), R(RSP) | R(R12), INSN_CF_NONE),
		EFFECTS(rep_movsb, R(RSI) | R(RDI) | R(RCX) | INSN_FLAG_DF, R(RSI) | R(RDI) | R(RCX),
			INSN_CF_NONE),
		EFFECTS(cmpxchg_rcx_mem, R(RAX) | R(RCX) | R(RDX), R(RAX) | INSN_STATUS_FLAGS,
			INSN_CF_NONE),
		EFFECTS(div_rcx, R(RAX) | R(RDX) | R(RCX), R(RAX) | R(RDX) | INSN_STATUS_FLAGS,
			INSN_CF_NONE),
		/*
		 * A byte source, a full destination: the destination is not a
		 * byte register (%esp, not %ah; %edi, not %bh). The SFI proof
		 * found the decoder reading it as one.
		 */
		EFFECTS(movzx_al_esp, R(RAX), R(RSP), INSN_CF_NONE),
		EFFECTS(movzx_ah_edi, R(RAX), R(RDI), INSN_CF_NONE),
		EFFECTS(movsx_sil_edi, R(RSI), R(RDI), INSN_CF_NONE),
		/* The zeroing idiom reads nothing. */
		EFFECTS(xor_eax_eax, 0, R(RAX) | INSN_STATUS_FLAGS, INSN_CF_NONE),
		EFFECTS(syscall_case, 0, R(RCX) | R(R11), INSN_CF_SYSCALL),
		EFFECTS(cpuid_case, R(RAX) | R(RCX), R(RAX) | R(RBX) | R(RCX) | R(RDX), INSN_CF_NONE),
		/* A shift by CL may leave the flags alone (count 0): read as well. */
		EFFECTS(shl_cl, R(RAX) | R(RCX) | INSN_STATUS_FLAGS, R(RAX) | INSN_STATUS_FLAGS,
			INSN_CF_NONE),
		EFFECTS(shl_one, R(RAX), R(RAX) | INSN_STATUS_FLAGS, INSN_CF_NONE),
		/* An immediate count known not to be 0 writes the flags for sure. */
		EFFECTS(shl_imm4, R(RAX), R(RAX) | INSN_STATUS_FLAGS, INSN_CF_NONE),
		EFFECTS(rcl_imm4, R(RAX) | INSN_FLAG_CF, R(RAX) | INSN_FLAG_CF | INSN_FLAG_OF,
			INSN_CF_NONE),
		EFFECTS(shl_imm0, R(RAX), R(RAX), INSN_CF_NONE),
		EFFECTS(setne_al, R(RAX) | INSN_FLAG_ZF, R(RAX), INSN_CF_NONE),
		EFFECTS(cmovge_case, R(RAX) | R(RBX) | INSN_FLAG_SF | INSN_FLAG_OF, R(RAX), INSN_CF_NONE),
		EFFECTS(jrcxz_case, R(RCX), 0, INSN_CF_LOOP),
		EFFECTS(loop_case, R(RCX), R(RCX), INSN_CF_LOOP),
		EFFECTS(int3_case, 0, 0, INSN_CF_INT3),
		EFFECTS(hlt_case, 0, 0, INSN_CF_HLT),
		EFFECTS(ud2_case, 0, 0, INSN_CF_UD),
		EFFECTS(mov_cr3, 0, R(RAX), INSN_CF_NONE),
		EFFECTS(nop_long, R(RAX), 0, INSN_CF_NONE),
		EFFECTS(pause_case, 0, 0, INSN_CF_NONE),
		EFFECTS(xchg_r8, R(RAX) | R(R8), R(RAX) | R(R8), INSN_CF_NONE),
		EFFECTS(r12_base, R(R12), R(RAX), INSN_CF_NONE),
		EFFECTS(r13_base, R(R13), R(RAX), INSN_CF_NONE),
		EFFECTS(index_r12, R(RAX) | R(R12), R(RBX), INSN_CF_NONE),
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct effects_case *c = &cases[i];
		struct insn in;
		if (!decode(t, &in, c->start, c->end, c->name))
			continue;
		CHECK(t, in.regs_read == c->reads, "%s reads 0x%x, expected 0x%x", c->name,
		      in.regs_read, c->reads);
		CHECK(t, in.regs_written == c->writes, "%s writes 0x%x, expected 0x%x", c->name,
		      in.regs_written, c->writes);
		CHECK(t, in.cf == c->cf, "%s control flow %u, expected %u", c->name, in.cf, c->cf);
		CHECK(t, in.semantics_known, "%s semantics unknown", c->name);
	}
}

HOST_TEST(insn_targets_and_layout)
{
	struct insn in;

	REQUIRE(t, DECODE(in, jne_far), "jne");
	CHECK(t, in.target == ADDR + 0x1000 && in.imm_size == 4, "jne target 0x%llx",
	      (unsigned long long)in.target);
	REQUIRE(t, DECODE(in, jl_near), "jl");
	CHECK(t, in.target == ADDR + 0x20 && in.imm_size == 1, "jl target");
	REQUIRE(t, DECODE(in, call_rel), "call");
	CHECK(t, in.target == ADDR + 0x12345 && insn_falls_through(&in), "call");
	REQUIRE(t, DECODE(in, ret_imm), "ret imm");
	CHECK(t, in.imm == 16 && !insn_falls_through(&in), "ret $16");
	REQUIRE(t, DECODE(in, jmp_rip), "jmp *rip");
	CHECK(t, in.rip_relative && in.target == ADDR + in.length + 0x10 && in.mem_read,
	      "jmp *0x10(%%rip) target 0x%llx", (unsigned long long)in.target);
	REQUIRE(t, DECODE(in, mov_rip_load), "rip load");
	CHECK(t, in.rip_relative && in.disp == 0x100 && in.disp_size == 4 && in.disp_offset == 3,
	      "rip-relative displacement at %u", in.disp_offset);
	CHECK(t, in.target == ADDR + 7 + 0x100 && in.mem_read && !in.mem_write, "rip load target");
	/* The target counts the immediate that follows the displacement. */
	REQUIRE(t, DECODE(in, mov_rip_store_imm), "rip store");
	CHECK(t, in.rip_relative && in.imm_size == 4 && in.target == ADDR + in.length + 0x40 &&
	      in.mem_write && !in.mem_read, "rip store target 0x%llx", (unsigned long long)in.target);
	REQUIRE(t, DECODE(in, lea_sib), "lea");
	CHECK(t, in.has_sib && in.has_memory && !in.mem_read && !in.mem_write, "lea touches memory");
	REQUIRE(t, DECODE(in, movabs_imm), "movabs");
	CHECK(t, in.length == 10 && in.imm_size == 8 && (uint64_t)in.imm == 0x1122334455667788ull,
	      "movabs immediate");
	REQUIRE(t, DECODE(in, rexw_data16_call), "rex.W data16 call");
	CHECK(t, in.imm_size == 4 && in.target == ADDR + 7 + 0x100, "REX.W must win over 66");
	REQUIRE(t, DECODE(in, data16_jmp), "data16 jmp");
	CHECK(t, in.imm_size == 2 && in.vendor_specific && in.target == ((ADDR + 4 + 0x10) & 0xffff),
	      "rel16 jump target 0x%llx", (unsigned long long)in.target);
}

HOST_TEST(insn_vector_is_over_approximated)
{
	struct insn in;

	REQUIRE(t, DECODE(in, vaddps_case), "vex");
	CHECK(t, in.encoding == INSN_VEX2 || in.encoding == INSN_VEX3, "encoding %u", in.encoding);
	CHECK(t, !in.semantics_known && (in.regs_read & INSN_FLAGS) == INSN_FLAGS &&
	      in.regs_written == 0, "vector effects must be the safe over-approximation");
	REQUIRE(t, DECODE(in, evex_case), "evex");
	CHECK(t, in.encoding == INSN_EVEX && in.length == 6, "evex length %u", in.length);
	REQUIRE(t, DECODE(in, endbr_case), "endbr64");
	CHECK(t, in.length == 4 && in.cf == INSN_CF_NONE, "endbr64");
}

HOST_TEST(insn_invalid_and_truncated)
{
	struct insn in;

	insn_decode(&in, push_es, (size_t)(push_es_end - push_es), ADDR);
	CHECK(t, in.status == INSN_INVALID, "push %%es accepted in 64-bit mode");
	insn_decode(&in, too_long, (size_t)(too_long_end - too_long), ADDR);
	CHECK(t, in.status == INSN_INVALID && in.length <= INSN_MAX_LENGTH,
	      "16-byte instruction: status %d length %u", in.status, in.length);
	insn_decode(&in, rex_vex, (size_t)(rex_vex_end - rex_vex), ADDR);
	CHECK(t, in.status == INSN_INVALID && in.invalid_why && in.length == 5,
	      "REX before VEX: status %d length %u", in.status, in.length);
	for (size_t n = 0; n < (size_t)(movabs_imm_end - movabs_imm); n++) {
		insn_decode(&in, movabs_imm, n, ADDR);
		CHECK(t, in.status == INSN_TRUNCATED && in.length <= n,
		      "movabs cut to %zu bytes: status %d length %u", n, in.status, in.length);
	}
	insn_decode(&in, movabs_imm, 0, ADDR);
	CHECK(t, in.status == INSN_TRUNCATED && in.length == 0, "empty input");
}

HOST_TEST(insn_names)
{
	struct insn in;

	REQUIRE(t, DECODE(in, jne_far), "jne");
	CHECK(t, !strcmp(insn_mnemonic(&in), "jne"), "jne named '%s'", insn_mnemonic(&in));
	REQUIRE(t, DECODE(in, cmovge_case), "cmovge");
	CHECK(t, !strcmp(insn_mnemonic(&in), "cmovge"), "cmovge named '%s'", insn_mnemonic(&in));
	REQUIRE(t, DECODE(in, pause_case), "pause");
	CHECK(t, !strcmp(insn_mnemonic(&in), "pause"), "pause named '%s'", insn_mnemonic(&in));
	CHECK(t, !strcmp(insn_reg_name(INSN_R12), "r12") && !strcmp(insn_reg_name(16), "CF"),
	      "register names");
}
