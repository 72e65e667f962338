// SPDX-License-Identifier: BSD-2-Clause
/*
 * Fuzz the sandbox's verifier (arch/x86/sfi_verify.c) with arbitrary
 * and mutated graft code, and run whatever it accepts.
 *
 * The input is the start of a text region (TEXT_SIZE bytes at
 * WINDOW_TEXT, the rest ud2, the last bundle the exit stub, as the
 * kernel's loader lays it out). Before verifying, the harness does what
 * the loader's relocations do for a sandboxed graft: it writes the
 * region's mask and base into every `and $imm32, %r14` and
 * `or $imm32, %r14`, so that mutations of real grafts (the seeds: the
 * .text of build/grafts/) keep getting past the masks. The verifier
 * must never crash (ASan, UBSan).
 *
 * Code it accepts runs in the window child (tests/sfi/window_child.h):
 * a traced process laid out like a graft's window, where every write
 * outside the window's stack and the graft's data faults and every read
 * outside the window's reserve succeeds, single-stepped up to STEP_LIMIT
 * instructions from the entry with the argument registers aimed at a
 * read-only target page and the others as one of the SFI proof's
 * states (chosen by the input's hash, so a run repeats). Any escape the
 * child reports (a store outside the sandbox, a branch out of the
 * verified instruction starts, %r15 or %rsp changed) is a crash with
 * the address and the registers that matter.
 *
 * SFI_FUZZ_SKIP_VERIFY=1 runs every input without verifying it (the
 * child then checks only that rip stays in the text): the way to show
 * that the harness sees an escape in a known-bad graft.
 */
#include <string.h>
#include <arch/sfi.h>
#include <arch/insn.h>
#include "fuzz.h"
#include "../sfi/window_child.h"
#include "../sfi/window_states.h"

#define TEXT_SIZE  WINDOW_TEXT_MAX
#define STEP_LIMIT 4096
#define T          WINDOW_TARGET
#define W          WINDOW_BASE

static struct window_child child;
static bool ready, skip_verify;
static unsigned long accepted, refused, steps;
static unsigned long outcomes[WINDOW_OUTCOMES];

static void report(void)
{
	fprintf(stderr, "fuzz_sfi_verify: %lu %s (%lu steps:", accepted,
		skip_verify ? "run unverified" : "accepted and run", steps);
	for (unsigned o = 0; o < WINDOW_OUTCOMES; o++)
		if (outcomes[o])
			fprintf(stderr, " %s %lu", window_outcome_name((enum window_outcome)o), outcomes[o]);
	fprintf(stderr, "), %lu refused\n", refused);
}

static void set_up(void)
{
	char err[256];
	const char *skip = getenv("SFI_FUZZ_SKIP_VERIFY");

	skip_verify = skip && !strcmp(skip, "1");
	window_pin_to_this_cpu();
	FUZZ_ASSERT(!window_child_start(&child, TEXT_SIZE, err, sizeof(err)), "%s", err);
	ready = true;
	atexit(report);
}

static bool is_api(void *ctx, uint64_t addr)
{
	(void)ctx;
	return addr == WINDOW_API;
}

/*
 * What the loader's relocations write for a sandboxed graft: the
 * masks' immediates (and $imm32, %r14 gets the text mask unless it is
 * the stack guard's; or $imm32, %r14 the text base), found by decoding
 * from the start as the verifier does.
 */
static void complete_masks(uint8_t *code, size_t n)
{
	struct insn in;
	uint32_t mask = sfi_text_mask((uint32_t)TEXT_SIZE), base = (uint32_t)WINDOW_TEXT;

	for (size_t off = 0; off < n; off += in.length) {
		if (insn_decode(&in, code + off, n - off, WINDOW_TEXT + off) != INSN_OK)
			return;
		bool r14_imm32 = in.map == INSN_MAP_ONE && in.opcode == 0x81 && (in.rex & 0x9) == 0x9 &&
				 (in.modrm & 0xc7) == 0xc6 && in.imm_size == 4;	/* REX.W+B, mod 3, rm 6 */
		unsigned op = (in.modrm >> 3) & 7;
		if (r14_imm32 && op == 4 && in.imm != SFI_STACK_MASK)
			memcpy(code + off + in.imm_offset, &mask, sizeof(mask));
		else if (r14_imm32 && op == 1)
			memcpy(code + off + in.imm_offset, &base, sizeof(base));
	}
}

/* The kernel's layout of a text region (arch/x86/sfi_text.c), with the input as its code. */
static void lay_out(uint8_t *text, const uint8_t *data, size_t size)
{
	size_t n = size < TEXT_SIZE - SFI_BUNDLE ? size : TEXT_SIZE - SFI_BUNDLE;
	arch_sfi_text_init(text, WINDOW_TEXT, TEXT_SIZE, WINDOW_GATE);
	memcpy(text, data, n);
	complete_masks(text, n);
}

/* FNV-1a of the input: picks the state, so that a crash repeats. */
static uint64_t input_hash(const uint8_t *data, size_t size)
{
	uint64_t h = 0xcbf29ce484222325ull;
	for (size_t i = 0; i < size; i++)
		h = (h ^ data[i]) * 0x100000001b3ull;
	return h;
}

/*
 * The registers at the graft's entry: one of the proof's states, the
 * arguments aimed at the target page (a pointer to it, and the offsets
 * from the window, in bytes and in bits, and from the text, that reach
 * it), and the exit stub's address pushed where the dispatcher pushes
 * it, so that a graft that returns reaches the exit gate.
 */
static void entry_state(struct window_run *run, uint64_t hash)
{
	uint64_t rng = hash | 1;
	uint64_t exit_stub = WINDOW_TEXT + TEXT_SIZE - SFI_BUNDLE;

	window_state((unsigned)(hash % window_state_count()), &rng, run->gpr, &run->rflags);
	run->gpr[INSN_RDI] = T;
	run->gpr[INSN_RSI] = T - W;
	run->gpr[INSN_RDX] = (T - W) * 8;
	run->gpr[INSN_RCX] = T - WINDOW_TEXT;
	run->gpr[INSN_R8] = T + WINDOW_PAGE - 8;
	run->gpr[INSN_R9] = (uint64_t)-8;
	run->gpr[INSN_RSP] = WINDOW_STACK_TOP - 16;
	memcpy(child.stack + SFI_STACK_SIZE - 16, &exit_stub, sizeof(exit_stub));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static uint8_t text[TEXT_SIZE], marks[TEXT_SIZE];
	char err[SFI_ERR_MAX];

	if (!ready)
		set_up();
	lay_out(text, data, size);
	const struct sfi_layout layout = {
		.text = WINDOW_TEXT, .text_size = TEXT_SIZE, .entry = WINDOW_TEXT, .data = WINDOW_DATA,
		.data_size = WINDOW_DATA_SIZE, .exit_gate = WINDOW_GATE, .is_api_entry = is_api,
	};
	if (!skip_verify && sfi_verify(text, &layout, marks, err)) {
		FUZZ_ASSERT(err[0] && strlen(err) < SFI_ERR_MAX, "a refusal without its line");
		refused++;
		return 0;
	}
	accepted++;
	memcpy(child.text, text, TEXT_SIZE);
	struct window_run run = {
		.marks = skip_verify ? NULL : marks, .entry = WINDOW_TEXT, .step_limit = STEP_LIMIT,
	};
	struct window_result res;
	entry_state(&run, input_hash(data, size));
	window_child_run(&child, &run, &res);
	steps += res.steps;
	outcomes[res.outcome]++;
	FUZZ_ASSERT(res.outcome != WINDOW_BROKEN, "the window child broke: %s", res.why);
	FUZZ_ASSERT(res.outcome != WINDOW_ESCAPE, "%s code (%zu bytes) escaped its sandbox after %u "
		    "steps: %s", skip_verify ? "unverified (SFI_FUZZ_SKIP_VERIFY=1)" : "verified", size,
		    res.steps, res.why);
	return 0;
}
