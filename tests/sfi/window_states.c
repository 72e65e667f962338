// SPDX-License-Identifier: BSD-2-Clause
/*
 * The register states of window_states.h. The aimed formulas follow
 * the ways a graft's address can be formed: T itself (a base or an
 * absolute pointer), T - W (an index or displacement added to %r15),
 * (T - W) * 8 (a bit offset: bt*, which addresses offset >> 3 bytes
 * away), (T - W) / 2, 4, 8 (a scaled index), T - TEXT (an offset from
 * the text, as a rip-relative or text-based operand), small negative
 * values (a store just below an address). Every register but %r15 and
 * %rsp holds the same value, so whichever register an instruction uses
 * as base, index or count is aimed. Deterministic for a given rng.
 */
#include <stddef.h>
#include <arch/insn.h>
#include "window_layout.h"
#include "window_child.h"
#include "window_states.h"

#define T WINDOW_TARGET
#define W WINDOW_BASE

enum kind { AIM, BOUNDARY, RANDOM_USER, RANDOM_FULL };

struct state {
	const char *name;
	enum kind kind;
	uint64_t value;
};

static const struct state states[] = {
	{ "aim T", AIM, T },
	{ "aim T-W", AIM, T - W },
	{ "aim (T-W)*8", AIM, (T - W) * 8 },
	{ "aim (T-W)/2", AIM, (T - W) / 2 },
	{ "aim (T-W)/4", AIM, (T - W) / 4 },
	{ "aim (T-W)/8", AIM, (T - W) / 8 },
	{ "aim T-TEXT", AIM, T - WINDOW_TEXT },
	{ "aim -8", AIM, (uint64_t)-8 },
	{ "aim -4096", AIM, (uint64_t)-4096 },
	{ "random user", RANDOM_USER, 0 },
	{ "0", BOUNDARY, 0 },
	{ "random user", RANDOM_USER, 0 },
	{ "-1", BOUNDARY, (uint64_t)-1 },
	{ "random 64-bit", RANDOM_FULL, 0 },
	{ "0x7fffffff", BOUNDARY, 0x7fffffff },
	{ "random user", RANDOM_USER, 0 },
	{ "0x80000000", BOUNDARY, 0x80000000 },
	{ "0xffffffff", BOUNDARY, 0xffffffff },
	{ "random user", RANDOM_USER, 0 },
	{ "2^32", BOUNDARY, 1ull << 32 },
	{ "random 64-bit", RANDOM_FULL, 0 },
};

unsigned window_state_count(void)
{
	return sizeof(states) / sizeof(states[0]);
}

/* A canonical user address every sum of two of which stays canonical: [2^31, 2^44). */
static uint64_t random_user(uint64_t *rng)
{
	return (1ull << 31) + window_rand(rng) % ((1ull << 44) - (1ull << 31));
}

const char *window_state(unsigned index, uint64_t *rng, uint64_t gpr[16], uint64_t *rflags)
{
	const struct state *s = &states[index % window_state_count()];

	for (unsigned n = 0; n < 16; n++) {
		switch (s->kind) {
		case AIM:
		case BOUNDARY:
			gpr[n] = s->value;
			break;
		case RANDOM_USER:
			gpr[n] = random_user(rng);
			break;
		case RANDOM_FULL:
			gpr[n] = window_rand(rng);
			break;
		}
	}
	if (s->kind != AIM)
		gpr[INSN_R14] = window_rand(rng);
	gpr[INSN_RSP] = window_stack_pointer(0);
	gpr[INSN_R15] = W;
	*rflags = window_rand(rng);
	return s->name;
}

static const uint64_t stack_pointers[] = {
	WINDOW_STACK_TOP - 16,		/* where the dispatcher enters, after pushing the exit stub */
	W,				/* full: a push faults in the guard below */
	W + 8,
	WINDOW_STACK_TOP,		/* empty: a pop faults in the guard above */
	W + 0x1235,			/* unaligned ones */
	WINDOW_STACK_TOP - 3,
	W + 4,
};

unsigned window_stack_pointer_count(void)
{
	return sizeof(stack_pointers) / sizeof(stack_pointers[0]);
}

uint64_t window_stack_pointer(unsigned index)
{
	return stack_pointers[index % window_stack_pointer_count()];
}
