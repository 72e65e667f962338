// SPDX-License-Identifier: BSD-2-Clause
/*
 * The SFI proof's self-test: the harness must see damage. A handful of
 * forms that break the sandbox (arch/sfi.h) run in the window child
 * without being verified, and each must come back as an escape; a few
 * confined ones must come back confined, so that neither verdict is
 * the only one the harness can give. Each line also says what today's
 * verifier makes of the case, for the record: the self-test passes or
 * fails on the harness alone.
 */
#include <stdio.h>
#include <string.h>
#include <arch/insn.h>
#include "sfi_proof.h"
#include "window_states.h"

#define T WINDOW_TARGET
#define W WINDOW_BASE

struct selftest_case {
	const char *name;
	uint8_t length;
	uint8_t code[16];
	unsigned state;		/* window_state index: 0 aims every register at T */
	uint64_t rsp;		/* 0: the entry's */
	uint64_t rax;		/* if set, overrides the state's %rax */
	enum window_outcome want;
	uint64_t want_fault;	/* if set, the fault address the CPU must report */
};

#define AIM_T 0
#define AIM_BITS 2	/* (T - W) * 8 */

static const struct selftest_case cases[] = {
	{ "bts %rax,(%r15,%r14) after lea (%rsi),%r14d (the reviewer's case)", 8,
	  { 0x44, 0x8d, 0x36, 0x4b, 0x0f, 0xab, 0x04, 0x37 }, AIM_BITS, 0, 0, WINDOW_ESCAPE, T },
	{ "mov %rax,(%rbx) unguarded", 3, { 0x48, 0x89, 0x03 }, AIM_T, 0, 0, WINDOW_ESCAPE, T },
	{ "jmp *%rax", 2, { 0xff, 0xe0 }, AIM_T, 0, 0, WINDOW_ESCAPE, 0 },
	{ "rep stosb", 2, { 0xf3, 0xaa }, AIM_T, 0, 0, WINDOW_ESCAPE, T },
	{ "mov %rax,%r15", 3, { 0x49, 0x89, 0xc7 }, AIM_T, 0, 0, WINDOW_ESCAPE, 0 },
	{ "mov %rax,(%rax) to a non-canonical address (#GP)", 3, { 0x48, 0x89, 0x00 }, AIM_T, 0,
	  1ull << 63, WINDOW_ESCAPE, 0 },
	{ "jmp to the API entry (a tail call)", 5, { 0xe9 }, AIM_T, 0, 0, WINDOW_ESCAPE, 0 },
	{ "syscall", 2, { 0x0f, 0x05 }, AIM_T, 0, 0, WINDOW_ESCAPE, 0 },
	{ "mov %rax,%rsp", 3, { 0x48, 0x89, 0xc4 }, AIM_T, 0, 0, WINDOW_ESCAPE, 0 },
	/* Confined: the controls. */
	{ "control: mov %rax,(%r15,%r14) after lea (%rsi),%r14d", 7,
	  { 0x44, 0x8d, 0x36, 0x4b, 0x89, 0x04, 0x37 }, AIM_T, 0, 0, WINDOW_EXIT, 0 },
	{ "control: push %rax on a full stack", 1, { 0x50 }, AIM_T, W, 0, WINDOW_GUARD_FAULT, W - 8 },
	{ "control: mov (%rax),%rcx reads the target", 3, { 0x48, 0x8b, 0x08 }, AIM_T, 0, 0,
	  WINDOW_EXIT, 0 },
	{ "control: mov (%rax),%rcx from a non-canonical address", 3, { 0x48, 0x8b, 0x08 }, AIM_T, 0,
	  1ull << 63, WINDOW_READ_FAULT, 0 },
	{ "control: call to the API entry", 5, { 0xe8 }, AIM_T, 0, 0, WINDOW_EXIT, 0 },
	{ "control: ud2", 2, { 0x0f, 0x0b }, AIM_T, 0, 0, WINDOW_UD, 0 },
};

/* What the verifier says of the case, for the record. */
static void verifier_opinion(const uint8_t text[PROOF_TEXT_SIZE], char *out, size_t len)
{
	static uint8_t marks[PROOF_TEXT_SIZE];
	char err[SFI_ERR_MAX];

	if (sfi_verify(text, &proof_layout, marks, err))
		snprintf(out, len, "the verifier refuses it: %s", err);
	else
		snprintf(out, len, "the verifier ACCEPTS it");
}

unsigned sfi_selftest(struct window_child *c, uint64_t seed, unsigned *passed)
{
	static uint8_t text[PROOF_TEXT_SIZE];
	uint64_t rng = seed | 1;
	unsigned failed = 0;

	proof_text_template(text);
	*passed = 0;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct selftest_case *k = &cases[i];
		uint8_t code[16];
		struct window_run run = { .marks = NULL, .entry = WINDOW_TEXT, .step_limit = 16 };
		struct window_result res;
		char opinion[SFI_ERR_MAX + 40];

		memcpy(code, k->code, k->length);
		if (k->code[0] == 0xe9 || k->code[0] == 0xe8) {	/* rel32 to the API entry */
			int32_t rel = (int32_t)(WINDOW_API - (WINDOW_TEXT + 5));
			memcpy(code + 1, &rel, sizeof(rel));
		}
		proof_text_template(text);
		proof_lay_out(text, code, k->length);
		memcpy(c->text, text, PROOF_LAYOUT_BYTES);
		verifier_opinion(text, opinion, sizeof(opinion));
		run.end = WINDOW_TEXT + k->length;
		window_state(k->state, &rng, run.gpr, &run.rflags);
		if (k->rsp)
			run.gpr[INSN_RSP] = k->rsp;
		if (k->rax)
			run.gpr[INSN_RAX] = k->rax;
		window_child_run(c, &run, &res);
		bool ok = res.outcome == k->want && (!k->want_fault || res.fault_addr == k->want_fault);
		printf("sfi-proof selftest %s: %s (%s%s%s; %s)\n", k->name, ok ? "OK" : "FAILED",
		       window_outcome_name(res.outcome), res.why[0] ? ": " : "", res.why, opinion);
		if (!ok)
			printf("    wanted %s%s\n", window_outcome_name(k->want),
			       k->want_fault ? " with the fault address the case aims at" : "");
		if (ok)
			++*passed;
		else
			failed++;
	}
	return failed;
}
