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

#define CASE(name) extern const uint8_t name[], name##_end[]
CASE(good_all_forms); CASE(bad_store_kernel_text); CASE(bad_store_rip_outside);
CASE(bad_store_unmasked); CASE(bad_store_rsp_indexed); CASE(bad_store_r14_unset);
CASE(bad_store_r14_64bit); CASE(bad_store_split); CASE(bad_return_address);
CASE(bad_jmp_register); CASE(bad_jmp_r14_unmasked); CASE(bad_jmp_wrong_mask);
CASE(bad_jmp_wrong_base); CASE(bad_jmp_kernel); CASE(bad_call_kernel); CASE(bad_jcc_gate);
CASE(bad_jmp_mid_instruction); CASE(bad_hidden_cli); CASE(bad_jmp_past_mask);
CASE(bad_jmp_past_stack_guard); CASE(bad_cli); CASE(bad_mov_cr0); CASE(bad_out);
CASE(bad_syscall); CASE(bad_int); CASE(bad_std); CASE(bad_popf); CASE(bad_mov_ss);
CASE(bad_wrmsr); CASE(bad_rep_stos); CASE(bad_gs_load); CASE(bad_vector); CASE(bad_write_r15);
CASE(bad_write_rsp); CASE(bad_add_rsp); CASE(bad_pop_rsp); CASE(bad_leave);
CASE(bad_stack_guard_mask); CASE(bad_cross_bundle); CASE(bad_undecodable); CASE(ud2_fill);
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
	place(text, ud2_fill, ud2_fill_end);
	CHECK(t, verify(text, &layout, err) == 0, "all ud2 refused: %s", err);
}

struct hostile_case {
	const char *name;
	const uint8_t *start, *end;
	const char *message;	/* what err must hold, after "offset 0x..: " */
	unsigned offset;	/* of the offending instruction */
};

#define HOSTILE(n, off, msg) { #n, n, n##_end, (msg), (off) }

static const struct hostile_case hostile[] = {
	HOSTILE(bad_store_kernel_text, 0, "store to 0xffffffff80100000, outside the graft's data"),
	HOSTILE(bad_store_rip_outside, 0, "outside the graft's data"),
	HOSTILE(bad_store_unmasked, 0, "store through an unmasked register"),
	HOSTILE(bad_store_rsp_indexed, 0, "store through an unmasked register"),
	HOSTILE(bad_store_r14_unset, 0, "not preceded, in its bundle, by a 32-bit write of %r14d"),
	HOSTILE(bad_store_r14_64bit, 4, "not preceded, in its bundle, by a 32-bit write of %r14d"),
	HOSTILE(bad_store_split, 32, "not preceded, in its bundle"),
	HOSTILE(bad_return_address, 4, "ret is not allowed"),
	HOSTILE(bad_jmp_register, 0, "indirect branch not through %r14"),
	HOSTILE(bad_jmp_r14_unmasked, 0, "indirect branch not masked into the graft's text"),
	HOSTILE(bad_jmp_wrong_mask, 14, "indirect branch not masked into the graft's text"),
	HOSTILE(bad_jmp_wrong_base, 14, "indirect branch not masked into the graft's text"),
	HOSTILE(bad_jmp_kernel, 0, "jump to 0xffffffffc1f00000, outside the graft and not the exit gate"),
	HOSTILE(bad_call_kernel, 0, "call to 0xffffffffc1e00000, outside the graft and not an exported"),
	HOSTILE(bad_jcc_gate, 3, "outside the graft and not allowed for a conditional jump"),
	HOSTILE(bad_jmp_mid_instruction, 0, "branch to 0x3, inside an instruction"),
	HOSTILE(bad_hidden_cli, 0, "branch to 0x3, inside an instruction"),
	HOSTILE(bad_jmp_past_mask, 0, "past the check of a guarded sequence"),
	HOSTILE(bad_jmp_past_stack_guard, 0, "past the check of a guarded sequence"),
	HOSTILE(bad_cli, 0, "instruction not allowed in a sandboxed graft"),
	HOSTILE(bad_mov_cr0, 0, "instruction not allowed in a sandboxed graft"),
	HOSTILE(bad_out, 0, "instruction not allowed in a sandboxed graft"),
	HOSTILE(bad_syscall, 0, "instruction not allowed in a sandboxed graft"),
	HOSTILE(bad_int, 0, "instruction not allowed in a sandboxed graft"),
	HOSTILE(bad_std, 0, "instruction not allowed in a sandboxed graft"),
	HOSTILE(bad_popf, 0, "instruction not allowed in a sandboxed graft"),
	HOSTILE(bad_mov_ss, 0, "instruction not allowed in a sandboxed graft"),
	HOSTILE(bad_wrmsr, 0, "instruction not allowed in a sandboxed graft"),
	HOSTILE(bad_rep_stos, 0, "instruction not allowed in a sandboxed graft"),
	HOSTILE(bad_gs_load, 0, "segment override prefix"),
	HOSTILE(bad_vector, 0, "vector (VEX/EVEX/XOP) instructions are not allowed"),
	HOSTILE(bad_write_r15, 0, "writes %r15, the window base"),
	HOSTILE(bad_write_rsp, 0, "write to %rsp outside the stack guard"),
	HOSTILE(bad_add_rsp, 0, "write to %rsp outside the stack guard"),
	HOSTILE(bad_pop_rsp, 0, "write to %rsp outside the stack guard"),
	HOSTILE(bad_leave, 0, "instruction not allowed in a sandboxed graft"),
	HOSTILE(bad_stack_guard_mask, 15, "mov to %rsp not preceded, in its bundle, by and $0x7fff"),
	HOSTILE(bad_cross_bundle, 30, "crosses a 32-byte bundle boundary"),
	HOSTILE(bad_undecodable, 0, "undecodable (06): not a valid instruction"),
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
