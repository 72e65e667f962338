// SPDX-License-Identifier: BSD-2-Clause
/*
 * Host tests of the sandboxed-graft verifier (arch/x86/sfi_verify.c):
 * every form the scheme allows passes; each hostile case of
 * sfi_cases.S is refused with the message that names its offence and
 * the offset of the offending instruction; the region itself must be
 * well formed (a power of two, aligned, ending in code that does not
 * fall through).
 */
#include "host_test.h"
#include <arch/sfi.h>
#include <string.h>
#include <stdio.h>

#define TEXT      0xffffffffc2000000ull
#define TEXT_SIZE 4096u
#define DATA      (TEXT + 0x10000)
#define API       (TEXT - 0x100000)
#define GATE      (TEXT - 0x200000)

/*
 * Each hostile case of sfi_cases.S: its name, the offset of the offending
 * instruction, and what err must hold after "offset 0x..: ".
 */
#define HOSTILE_CASES(X) \
	X(bad_store_kernel_text, 0, "store to 0xffffffff80100000, outside the graft's data") \
	X(bad_store_rip_outside, 0, "outside the graft's data") \
	X(bad_store_unmasked, 0, "store through an unmasked register") \
	X(bad_store_rsp_indexed, 0, "store through an unmasked register") \
	X(bad_store_r14_unset, 0, "not preceded, in its bundle, by a 32-bit write of %r14d") \
	X(bad_store_r14_64bit, 4, "not preceded, in its bundle, by a 32-bit write of %r14d") \
	X(bad_store_split, 32, "not preceded, in its bundle") \
	X(bad_return_address, 4, "not allowed in a sandboxed graft: ret takes its target from the graft's stack") \
	X(bad_jmp_register, 0, "indirect branch not through %r14") \
	X(bad_jmp_r14_unmasked, 0, "indirect branch not masked into the graft's text") \
	X(bad_jmp_wrong_mask, 14, "indirect branch not masked into the graft's text") \
	X(bad_jmp_wrong_base, 14, "indirect branch not masked into the graft's text") \
	X(bad_jmp_kernel, 0, "jump to 0xffffffffc1f00000, outside the graft and not the exit gate") \
	X(bad_call_kernel, 7, "call to 0xffffffffc1e00000, outside the graft and not an exported") \
	X(bad_jcc_gate, 3, "outside the graft and not allowed for a conditional jump") \
	X(bad_jmp_mid_instruction, 0, "branch to 0x3, inside an instruction") \
	X(bad_hidden_cli, 0, "branch to 0x3, inside an instruction") \
	X(bad_jmp_past_mask, 0, "past the check of a guarded sequence") \
	X(bad_jmp_past_stack_guard, 0, "past the check of a guarded sequence") \
	X(bad_cli, 0, "not allowed in a sandboxed graft: privileged") \
	X(bad_mov_cr0, 0, "not allowed in a sandboxed graft: privileged") \
	X(bad_out, 0, "not allowed in a sandboxed graft: port I/O") \
	X(bad_syscall, 0, "not allowed in a sandboxed graft: interrupts, traps, system calls") \
	X(bad_int, 0, "not allowed in a sandboxed graft: interrupts, traps, system calls") \
	X(bad_std, 0, "not allowed in a sandboxed graft: std sets DF") \
	X(bad_popf, 0, "not allowed in a sandboxed graft: pushf/popf") \
	X(bad_mov_ss, 0, "not allowed in a sandboxed graft: segment registers") \
	X(bad_wrmsr, 0, "not allowed in a sandboxed graft: privileged") \
	X(bad_rep_stos, 0, "not allowed in a sandboxed graft: a string instruction writes at %rdi") \
	X(bad_gs_load, 0, "segment override prefix") \
	X(bad_vector, 0, "vector (VEX/EVEX/XOP) instructions are not allowed") \
	X(bad_write_r15, 0, "writes %r15, the window base") \
	X(bad_write_rsp, 0, "write to %rsp outside the stack guard") \
	X(bad_add_rsp, 0, "write to %rsp outside the stack guard") \
	X(bad_pop_rsp, 0, "write to %rsp outside the stack guard") \
	X(bad_leave, 0, "not allowed in a sandboxed graft: enter and leave set %rsp") \
	X(bad_stack_guard_mask, 15, "mov to %rsp not preceded, in its bundle, by and $0x7fff") \
	X(bad_cross_bundle, 30, "crosses a 32-byte bundle boundary") \
	X(bad_undecodable, 0, "undecodable (06): not a valid instruction") \
	X(bad_bts_register_offset, 3, "a register bit offset reaches memory up to 2^60 bytes") \
	X(bad_btr_register_offset, 3, "a register bit offset reaches memory") \
	X(bad_btc_register_offset, 3, "a register bit offset reaches memory") \
	X(bad_fxsave, 3, "saves or loads processor state") \
	X(bad_xsave, 3, "saves or loads processor state") \
	X(bad_cmpxchg16b_past_data, 0, "outside the graft's data") \
	X(bad_store_scaled_r14, 3, "store through an unmasked register") \
	X(bad_store_swapped, 3, "store through an unmasked register") \
	X(bad_store_r14_16bit, 4, "not preceded, in its bundle, by a 32-bit write of %r14d") \
	X(bad_store_gs, 3, "segment override prefix") \
	X(bad_jmp_rel16, 0, "depends on the CPU's vendor") \
	X(bad_bnd_jmp, 0, "a 66, f2 or f3 prefix on a branch") \
	X(bad_jmp_r14_word, 14, "a 66, f2 or f3 prefix on a branch") \
	X(bad_rep_add, 0, "an f2 or f3 prefix on an instruction that takes none") \
	X(bad_enter, 0, "enter and leave set %rsp outside the stack guard") \
	X(bad_xbegin, 0, "transactional memory") \
	X(bad_lss, 0, "segment registers") \
	X(bad_movs, 0, "a string instruction") \
	X(bad_moffs_store, 0, "a 64-bit absolute address") \
	X(bad_write_spl, 0, "write to %rsp outside the stack guard") \
	X(bad_write_esp, 0, "write to %rsp outside the stack guard") \
	X(bad_xchg_rsp, 0, "write to %rsp outside the stack guard") \
	X(bad_write_r15b, 0, "writes %r15, the window base") \
	X(bad_xchg_r15, 0, "writes %r15, the window base") \
	X(bad_push_word, 0, "write to %rsp outside the stack guard") \
	X(bad_ret_imm, 0, "ret takes its target from the graft's stack") \
	X(bad_lret, 0, "a far transfer") \
	X(bad_loop, 0, "unused by the graft build") \
	X(bad_call_api_unprobed, 0, "call out of the graft not preceded, in its bundle, by " "the API stack probe test %al, -0x4000(%rsp)") \
	X(bad_call_api_short_probe, 7, "not preceded, in its bundle, by the API stack probe") \
	X(bad_jmp_past_api_probe, 0, "past the check of a guarded sequence") \
	X(bad_movzx_esp, 0, "write to %rsp outside the stack guard") \
	X(bad_movzx_r15d, 0, "writes %r15, the window base")

#define CASE(name) extern const uint8_t name[], name##_end[]
CASE(good_all_forms); CASE(good_bounded_extents); CASE(ud2_fill);
#define DECLARE_HOSTILE(name, offset, message) CASE(name);
HOSTILE_CASES(DECLARE_HOSTILE)
extern const uint8_t ud2_fill_one[];

static bool api_entry(void *ctx, uint64_t addr)
{
	(void)ctx;
	return addr == API;
}

static const struct sfi_layout layout = {
	.text = TEXT, .text_size = TEXT_SIZE, .entry = TEXT, .data = DATA, .data_size = 4096,
	.exit_gate = GATE, .is_api_entry = api_entry,
};

/* The case's bytes at offset 0 of a text region, the rest ud2. */
static void place(uint8_t *text, const uint8_t *start, const uint8_t *end)
{
	size_t n = (size_t)(end - start), ud2_len = (size_t)(ud2_fill_one - ud2_fill);
	memcpy(text, start, n);
	for (size_t off = n; off + ud2_len <= TEXT_SIZE; off += ud2_len)
		memcpy(text + off, ud2_fill_one, ud2_len);
}

static int verify(const uint8_t *text, const struct sfi_layout *l, char err[SFI_ERR_MAX])
{
	static uint8_t marks[TEXT_SIZE];
	return sfi_verify(text, l, marks, err);
}

HOST_TEST(sfi_accepts_every_allowed_form)
{
	static uint8_t text[TEXT_SIZE];
	char err[SFI_ERR_MAX];

	place(text, good_all_forms, good_all_forms_end);
	CHECK(t, verify(text, &layout, err) == 0, "good_all_forms refused: %s", err);
	place(text, good_bounded_extents, good_bounded_extents_end);
	CHECK(t, verify(text, &layout, err) == 0, "good_bounded_extents refused: %s", err);
	place(text, ud2_fill, ud2_fill_end);
	CHECK(t, verify(text, &layout, err) == 0, "all ud2 refused: %s", err);
}

struct hostile_case {
	const char *name;
	const uint8_t *start, *end;
	const char *message;	/* what err must hold, after "offset 0x..: " */
	unsigned offset;	/* of the offending instruction */
};

static const struct hostile_case hostile[] = {
#define HOSTILE_ENTRY(n, off, msg) { #n, n, n##_end, (msg), (off) },
	HOSTILE_CASES(HOSTILE_ENTRY)
};

HOST_TEST(sfi_refuses_each_hostile_case)
{
	static uint8_t text[TEXT_SIZE];
	char err[SFI_ERR_MAX], want_offset[32];

	for (size_t i = 0; i < sizeof(hostile) / sizeof(hostile[0]); i++) {
		const struct hostile_case *c = &hostile[i];
		place(text, c->start, c->end);
		snprintf(want_offset, sizeof(want_offset), "offset 0x%x: ", c->offset);
		int rc = verify(text, &layout, err);
		CHECK(t, rc == -1 && !strncmp(err, want_offset, strlen(want_offset)) &&
			 strstr(err, c->message), "%s: rc %d, err '%s', want '%s...%s'", c->name, rc,
		      err, want_offset, c->message);
	}
}

HOST_TEST(sfi_checks_the_region)
{
	static uint8_t text[TEXT_SIZE];
	char err[SFI_ERR_MAX];
	struct sfi_layout l = layout;

	place(text, good_all_forms, good_all_forms_end);
	l.text_size = 3 * 1024;
	CHECK(t, verify(text, &l, err) == -1 && strstr(err, "not a power of two"), "%s", err);
	l = layout;
	l.text = TEXT + 0x800;
	CHECK(t, verify(text, &l, err) == -1 && strstr(err, "not a power of two aligned"), "%s", err);
	l = layout;
	l.entry = TEXT + 8;
	CHECK(t, verify(text, &l, err) == -1 && strstr(err, "entry point 0xffffffffc2000008 is not a bundle start"),
	      "%s", err);
	l = layout;
	l.text = 0x400000000ull;
	CHECK(t, verify(text, &l, err) == -1 && strstr(err, "top or bottom 2 GiB"), "%s", err);

	/* A ud2 across a bundle boundary is refused like any instruction. */
	size_t ud2_len = (size_t)(ud2_fill_one - ud2_fill);
	for (size_t off = 0; off < 31; off++)
		text[off] = bad_cross_bundle[0];	/* a one-byte nop */
	for (size_t off = 31; off + ud2_len <= TEXT_SIZE; off += ud2_len)
		memcpy(text + off, ud2_fill_one, ud2_len);
	CHECK(t, verify(text, &layout, err) == -1 &&
		 !strncmp(err, "offset 0x1f: ud2", 16) && strstr(err, "crosses a 32-byte bundle"),
	      "%s", err);

	/* Code that runs off the end: the last instruction falls through. */
	memset(text, 0, TEXT_SIZE);
	for (size_t off = 0; off < TEXT_SIZE; off += 4)
		memcpy(text + off, bad_store_r14_64bit, 4);	/* lea 8(%rdi), %r14: falls through */
	CHECK(t, verify(text, &layout, err) == -1 && strstr(err, "falls through its end"), "%s", err);
}
