// SPDX-License-Identifier: BSD-2-Clause
/*
 * The SFI proof: an executable check that whatever the load-time
 * verifier (arch/x86/sfi_verify.c) accepts stays in its sandbox
 * (arch/sfi.h), instruction form by instruction form, with the CPU and
 * the page tables as the judge.
 *
 * Every candidate encoding (sfi_candidates.c) is laid out at offset 0
 * of a text region after each guard context the verifier recognises
 * (sfi_contexts.c), followed by `jmp GATE`, the rest of the region as
 * the loader fills it, and verified by the real sfi_verify. What it
 * accepts runs in the window child (window_child.c), single-stepped
 * from several register states (window_states.c): aimed at a target
 * outside the window's reserve, boundary values, random canonical user
 * addresses, random 64-bit values, with the stack pointer at the entry,
 * at either end of the stack and unaligned. Any escape is a failure of
 * the candidate's form, printed with its bytes, its context and its
 * state.
 *
 * Every candidate the verifier accepts alone runs alone, and every one
 * it accepts only after a guard runs after each such guard (pair_class
 * below says with how many states); one it accepts both alone and after
 * a context runs there too, in a sample (every 8th in the full run).
 *
 *   sfi-proof [--quick | --full] [--seed N] [--shard I/N] [--opcode HEX] [--max-escapes N]
 *             [--verify-only]
 *   sfi-proof --self-test [--seed N]
 * --shard I/N: only every N-th opcode from the I-th (N processes share a
 * full run); --opcode: only that one ("8b", "0fb6", "0f38f0");
 * --verify-only: enumerate and verify, count the runs, run nothing.
 *
 * Output: one line per opcode form, "sfi-proof FORM: OK (..)" or
 * "sfi-proof FORM: FAILED: ..", the totals, and `N passed, M failed`
 * (one result per form, plus one for the harness). Exit status 1 when
 * anything failed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <arch/insn.h>
#include "sfi_candidates.h"
#include "sfi_contexts.h"
#include "sfi_proof.h"
#include "window_states.h"

#define STEP_LIMIT 16
#define MAX_FORMS 4096
#define AIMED_STATES 9		/* window_state 0 .. 8 aim at the target */

static bool is_api(void *ctx, uint64_t addr)
{
	(void)ctx;
	return addr == WINDOW_API;
}

const struct sfi_layout proof_layout = {
	.text = WINDOW_TEXT, .text_size = PROOF_TEXT_SIZE, .entry = WINDOW_TEXT,
	.data = WINDOW_DATA, .data_size = WINDOW_DATA_SIZE, .exit_gate = WINDOW_GATE,
	.is_api_entry = is_api,
};

void proof_text_template(uint8_t text[PROOF_TEXT_SIZE])
{
	arch_sfi_text_init(text, WINDOW_TEXT, PROOF_TEXT_SIZE, WINDOW_GATE);
}

void proof_lay_out(uint8_t text[PROOF_TEXT_SIZE], const uint8_t *code, unsigned n)
{
	static const uint8_t nops[5][4] = {
		{ 0 }, { 0x90 }, { 0x66, 0x90 }, { 0x0f, 0x1f, 0x00 }, { 0x0f, 0x1f, 0x40, 0x00 },
	};
	unsigned jmp = n;

	memcpy(text, code, n);
	if (n + 5 > SFI_BUNDLE && n < SFI_BUNDLE) {
		memcpy(text + n, nops[SFI_BUNDLE - n], SFI_BUNDLE - n);
		jmp = SFI_BUNDLE;
	}
	int32_t rel = (int32_t)(WINDOW_GATE - (WINDOW_TEXT + jmp + 5));
	text[jmp] = 0xe9;
	memcpy(text + jmp + 1, &rel, sizeof(rel));
	/* The fill's ud2 pairs start at even offsets: a nop takes the odd byte between. */
	if ((jmp + 5) & 1)
		text[jmp + 5] = 0x90;
}

/*
 * The classes of an accepted (candidate, context) pair, each with its
 * states per run (quick, full) and its budget of pairs per form in the
 * quick run (0: all of them). Every pair accepted alone or only after
 * a guard runs, in both; the ones a context does not change for the
 * verifier (it accepts the candidate alone too) are sampled in the
 * quick run: the context only sets %r14, which the states vary anyway.
 */
enum pair_class {
	ALONE,		/* accepted with no context */
	GUARDED,	/* accepted only after a context: a guarded sequence */
	OTHER,		/* accepted alone and after this context too */
	CLASSES
};
static const unsigned states_per_pair[2][CLASSES] = {
	{ [ALONE] = 1, [GUARDED] = 4, [OTHER] = 1 },	/* quick */
	{ [ALONE] = 2, [GUARDED] = 6, [OTHER] = 1 },	/* full */
};
static const unsigned quick_pairs[CLASSES] = { [ALONE] = 0, [GUARDED] = 0, [OTHER] = 40 };
#define FULL_OTHER_STRIDE 8	/* the full run: every 8th pair of class OTHER */

struct form {
	char name[40];
	uint64_t candidates, verified, accepted, runs, escapes, broken;
	uint64_t pairs[CLASSES];	/* accepted pairs of each class (the first pass) */
	uint64_t seen[CLASSES];		/* ... met so far in the second */
	char first_escape[512];
};

struct proof {
	struct window_child child;
	bool full;
	bool verify_only;		/* count what would run, run nothing */
	bool executing;			/* the second pass */
	unsigned max_escapes;
	uint64_t rng;
	unsigned rotation;		/* states and stack pointers in turn */
	uint64_t sequence;		/* the candidate's number in its opcode's enumeration */
	uint8_t *accepted_by;		/* per candidate: a bit per context kind that accepts it */
	uint64_t accepted_by_size;
	uint8_t template[PROOF_TEXT_SIZE];
	uint8_t text[PROOF_TEXT_SIZE];
	uint8_t marks[PROOF_TEXT_SIZE];
	struct form forms[MAX_FORMS];
	unsigned nforms;
	uint64_t verify_calls, accepted, runs, escapes, broken;
	uint64_t outcomes[WINDOW_OUTCOMES];
	unsigned escapes_printed;
};

static struct form *form_named(struct proof *p, const char *name)
{
	for (unsigned i = 0; i < p->nforms; i++)	/* candidates of a form come in a row: search back */
		if (!strcmp(p->forms[p->nforms - 1 - i].name, name))
			return &p->forms[p->nforms - 1 - i];
	if (p->nforms == MAX_FORMS) {
		fprintf(stderr, "sfi-proof: more than %d opcode forms\n", MAX_FORMS);
		exit(2);
	}
	struct form *f = &p->forms[p->nforms++];
	snprintf(f->name, sizeof(f->name), "%s", name);
	return f;
}

static void hex(char *out, size_t len, const uint8_t *b, unsigned n)
{
	size_t used = 0;
	out[0] = '\0';
	for (unsigned i = 0; i < n && used + 4 < len; i++)
		used += (size_t)snprintf(out + used, len - used, "%s%02x", i ? " " : "", b[i]);
}

/*
 * The j-th state of a pair: T and (T-W)*8 first for a guarded one;
 * then aimed ones and the others in turn (with one state per pair,
 * every other pair gets an aimed one).
 */
static unsigned pick_state(struct proof *p, enum pair_class cls, unsigned j)
{
	static const unsigned guarded_first[] = { 0, 2 };
	unsigned count = window_state_count(), r = p->rotation++;

	if (cls == GUARDED && j < 2)
		return guarded_first[j];
	if ((j + r) % 2 == 0)
		return (r / 2) % AIMED_STATES;
	return AIMED_STATES + (r / 2) % (count - AIMED_STATES);
}

static void record_escape(struct proof *p, struct form *f, const struct sfi_context *cx,
			  const struct window_result *res, const char *state, uint64_t rsp,
			  unsigned length)
{
	char bytes[3 * 32 + 4], line[sizeof(f->first_escape)];

	hex(bytes, sizeof(bytes), p->text, length);
	snprintf(line, sizeof(line), "%s %s | context %s | bytes %s | state %s, rsp 0x%llx | %s",
		 res->outcome == WINDOW_BROKEN ? "BROKEN" : "ESCAPE", f->name, cx->name, bytes, state,
		 (unsigned long long)rsp, res->why);
	if (res->outcome == WINDOW_BROKEN) {
		f->broken++;
		p->broken++;
	} else {
		f->escapes++;
		p->escapes++;
	}
	if (!f->first_escape[0])
		snprintf(f->first_escape, sizeof(f->first_escape), "%s", line);
	if (p->escapes_printed < p->max_escapes) {
		printf("%s\n", line);
		if (++p->escapes_printed == p->max_escapes)
			printf("(no more escapes printed)\n");
	}
}

/* Run the laid-out text (context + candidate, `length` bytes) from the states of its class. */
static void execute(struct proof *p, struct form *f, const struct sfi_context *cx, unsigned length,
		    enum pair_class cls)
{
	unsigned nstates = states_per_pair[p->full][cls];

	if (p->verify_only) {
		p->runs += nstates;
		f->runs += nstates;
		return;
	}
	memcpy(p->child.text, p->text, PROOF_LAYOUT_BYTES);
	for (unsigned j = 0; j < nstates; j++) {
		struct window_run run = {
			.marks = p->marks, .entry = WINDOW_TEXT, .end = WINDOW_TEXT + length,
			.step_limit = STEP_LIMIT,
		};
		struct window_result res;
		const char *state = window_state(pick_state(p, cls, j), &p->rng, run.gpr, &run.rflags);
		run.gpr[INSN_RSP] = window_stack_pointer(p->rotation);
		uint32_t slot = (uint32_t)window_rand(&p->rng);
		memcpy(p->child.data + CONTEXT_DATA_SLOT, &slot, sizeof(slot));
		window_child_run(&p->child, &run, &res);
		p->runs++;
		f->runs++;
		p->outcomes[res.outcome]++;
		if (res.outcome == WINDOW_ESCAPE || res.outcome == WINDOW_BROKEN)
			record_escape(p, f, cx, &res, state, run.gpr[INSN_RSP], length);
	}
}

/* Whether the k-th pair (from 0) of n in its class runs: the budget spread evenly over them. */
static bool selected(const struct proof *p, enum pair_class cls, uint64_t k, uint64_t n)
{
	uint64_t want = quick_pairs[cls];

	if (p->full)
		return cls != OTHER || k % FULL_OTHER_STRIDE == 0;
	if (!want || n <= want)
		return true;
	return (k + 1) * want / n != k * want / n;
}

/* The candidate after context `kind`, laid out in p->text; false when it cannot be placed. */
static bool lay_out_pair(struct proof *p, const struct candidate *c, unsigned kind,
			 struct sfi_context *cx)
{
	uint8_t code[32];

	*cx = sfi_context(kind, (unsigned)p->sequence, PROOF_TEXT_SIZE);
	memcpy(code, cx->bytes, cx->length);
	if (!candidate_place(c, code + cx->length, WINDOW_TEXT + cx->length, WINDOW_TEXT,
			     PROOF_TEXT_SIZE))
		return false;	/* a rel8 that cannot reach the target */
	memcpy(p->text, p->template, PROOF_LAYOUT_BYTES);
	proof_lay_out(p->text, code, cx->length + c->length);
	return true;
}

/* The first pass: verify the candidate after every context, note which accept it. */
static void verify_candidate(struct proof *p, struct form *f, const struct candidate *c)
{
	uint8_t by = 0;
	char err[SFI_ERR_MAX];

	f->candidates++;
	for (unsigned kind = 0; kind < CONTEXT_KINDS; kind++) {
		struct sfi_context cx;
		if (!lay_out_pair(p, c, kind, &cx))
			continue;
		p->verify_calls++;
		f->verified++;
		if (sfi_verify(p->text, &proof_layout, p->marks, err))
			continue;
		p->accepted++;
		f->accepted++;
		by |= (uint8_t)(1u << kind);
		f->pairs[kind == CONTEXT_NONE ? ALONE : (by & 1) ? OTHER : GUARDED]++;
	}
	if (p->sequence == p->accepted_by_size) {
		p->accepted_by_size = p->accepted_by_size ? 2 * p->accepted_by_size : 1 << 20;
		p->accepted_by = realloc(p->accepted_by, p->accepted_by_size);
		if (!p->accepted_by) {
			fprintf(stderr, "sfi-proof: out of memory\n");
			exit(2);
		}
	}
	p->accepted_by[p->sequence] = by;
}

/* The second pass: run the pairs the first accepted, as many as the budget has room for. */
static void execute_candidate(struct proof *p, struct form *f, const struct candidate *c)
{
	uint8_t by = p->accepted_by[p->sequence];
	char err[SFI_ERR_MAX];

	for (unsigned kind = 0; kind < CONTEXT_KINDS; kind++) {
		if (!(by & (1u << kind)))
			continue;
		enum pair_class cls = kind == CONTEXT_NONE ? ALONE : (by & 1) ? OTHER : GUARDED;
		if (!selected(p, cls, f->seen[cls]++, f->pairs[cls]))
			continue;
		struct sfi_context cx;
		/* Verified again for its marks: the same bytes, the same verdict (a pure function). */
		if (!lay_out_pair(p, c, kind, &cx) || sfi_verify(p->text, &proof_layout, p->marks, err)) {
			printf("sfi-proof: the verifier changed its mind about %s after %s: %s\n",
			       c->form, cx.name, err);
			p->broken++;
			continue;
		}
		execute(p, f, &cx, cx.length + c->length, cls);
	}
}

static void try_candidate(void *ctx, const struct candidate *c)
{
	struct proof *p = ctx;
	struct form *f = form_named(p, c->form);

	if (p->executing)
		execute_candidate(p, f, c);
	else
		verify_candidate(p, f, c);
	p->sequence++;
}

static double seconds_since(const struct timespec *t0)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)(t.tv_sec - t0->tv_sec) + (double)(t.tv_nsec - t0->tv_nsec) * 1e-9;
}

/*
 * One opcode: verify all its candidates (the first pass, which counts
 * each form's pairs), then run those the budget selects (the second).
 * The full run says how far it got on stderr.
 */
static void prove_opcode(struct proof *p, uint16_t opcode, struct candidate_counts *counts,
			 struct candidate_counts *again, double *verify_secs, double *run_secs)
{
	struct timespec t0;
	unsigned first_form = p->nforms;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	p->executing = false;
	p->sequence = 0;
	enumerate_opcode(p->full, opcode, try_candidate, p, counts);
	double verified = seconds_since(&t0);
	p->executing = true;
	p->sequence = 0;
	enumerate_opcode(p->full, opcode, try_candidate, p, again);
	double total = seconds_since(&t0);
	*verify_secs += verified;
	*run_secs += total - verified;
	static const char *const maps[] = { "", "0f ", "0f38 ", "0f3a " };
	if (p->full && p->nforms > first_form)
		fprintf(stderr, "sfi-proof: opcode %s%02x: %.0f s verifying, %.0f s running; "
			"%llu candidates so far\n", maps[opcode >> 8 & 3], opcode & 0xff, verified,
			total - verified, (unsigned long long)counts->admitted);
}

/* "8b", "0fb6", "0f38f0", "0f3a0f": map << 8 | opcode, or -1. */
static int parse_opcode(const char *s)
{
	static const char *const escapes[] = { "0f38", "0f3a", "0f" };
	static const int maps[] = { 2, 3, 1 };
	int map = 0;
	char *end;

	for (unsigned i = 0; i < 3; i++)
		if (strlen(s) == strlen(escapes[i]) + 2 && !strncmp(s, escapes[i], strlen(escapes[i]))) {
			map = maps[i];
			s += strlen(escapes[i]);
			break;
		}
	unsigned long op = strtoul(s, &end, 16);
	return strlen(s) == 2 && !*end ? map << 8 | (int)op : -1;
}

static int usage(void)
{
	fprintf(stderr, "usage: sfi-proof [--quick | --full] [--seed N] [--shard I/N] [--opcode HEX] "
		"[--max-escapes N] [--verify-only]\n"
		"       sfi-proof --self-test [--seed N]\n");
	return 2;
}

static void report(struct proof *p, const struct candidate_counts *counts, double verify_secs,
		   double run_secs)
{
	unsigned passed = 0, failed = 0;

	for (unsigned i = 0; i < p->nforms; i++) {
		const struct form *f = &p->forms[i];
		if (f->escapes || f->broken) {
			printf("sfi-proof %s: FAILED: %llu escapes in %llu runs; first: %s\n", f->name,
			       (unsigned long long)(f->escapes + f->broken), (unsigned long long)f->runs,
			       f->first_escape);
			failed++;
		} else {
			printf("sfi-proof %s: OK (%llu candidates, %llu of %llu verifications accepted, "
			       "%llu runs)\n", f->name, (unsigned long long)f->candidates,
			       (unsigned long long)f->accepted, (unsigned long long)f->verified,
			       (unsigned long long)f->runs);
			passed++;
		}
	}
	bool harness_ok = p->runs > 0 && !p->broken;
	printf("sfi-proof harness: %s\n", harness_ok ? "OK" : p->runs ? "FAILED: the runner broke" :
	       "FAILED: nothing ran");
	harness_ok ? passed++ : failed++;
	printf("candidates: %llu built, %llu refused by the decoder at once, %llu tried in %u forms\n",
	       (unsigned long long)counts->generated, (unsigned long long)counts->decoder_refused,
	       (unsigned long long)counts->admitted, p->nforms);
	printf("verifications: %llu, accepted %llu (%.1f s); runs %llu, steps %llu (%.1f s, %.0f steps/s, "
	       "%llu child restarts)\n", (unsigned long long)p->verify_calls,
	       (unsigned long long)p->accepted, verify_secs, (unsigned long long)p->runs,
	       (unsigned long long)p->child.steps, run_secs,
	       run_secs > 0 ? (double)p->child.steps / run_secs : 0.0,
	       (unsigned long long)p->child.restarts);
	printf("outcomes:");
	for (unsigned o = 0; o < WINDOW_OUTCOMES; o++)
		printf(" %s %llu", window_outcome_name((enum window_outcome)o),
		       (unsigned long long)p->outcomes[o]);
	printf("\ntime: %.1f s\n", verify_secs + run_secs);
	printf("%u passed, %u failed\n", passed, failed);
}

int main(int argc, char **argv)
{
	static struct proof proof;
	struct proof *p = &proof;
	uint64_t seed = 0x5f1d5eedull;
	unsigned shard = 0, nshards = 1;
	int only_opcode = -1;
	bool self_test = false;
	char err[256];

	p->max_escapes = 20;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--quick"))
			p->full = false;
		else if (!strcmp(argv[i], "--full"))
			p->full = true;
		else if (!strcmp(argv[i], "--self-test"))
			self_test = true;
		else if (!strcmp(argv[i], "--verify-only"))
			p->verify_only = true;
		else if (!strcmp(argv[i], "--seed") && i + 1 < argc)
			seed = strtoull(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "--max-escapes") && i + 1 < argc)
			p->max_escapes = (unsigned)strtoul(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "--opcode") && i + 1 < argc &&
			 (only_opcode = parse_opcode(argv[++i])) >= 0)
			continue;
		else if (!strcmp(argv[i], "--shard") && i + 1 < argc &&
			 sscanf(argv[++i], "%u/%u", &shard, &nshards) == 2 && nshards && shard < nshards)
			continue;
		else
			return usage();
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("sfi-proof: %s, seed 0x%llx%s\n", self_test ? "self-test" : p->full ? "full" : "quick",
	       (unsigned long long)seed, nshards > 1 ? ", a shard" : "");
	window_pin_to_this_cpu();
	if (window_child_start(&p->child, PROOF_TEXT_SIZE, err, sizeof(err))) {
		printf("sfi-proof harness: FAILED: %s\n0 passed, 1 failed\n", err);
		return 1;
	}
	p->rng = seed ? seed : 1;
	p->child.rng = p->rng ^ 0x9e3779b97f4a7c15ull;
	proof_text_template(p->template);
	memcpy(p->text, p->template, PROOF_TEXT_SIZE);
	memcpy(p->child.text, p->template, PROOF_TEXT_SIZE);

	if (self_test) {
		unsigned passed, failed = sfi_selftest(&p->child, seed, &passed);
		window_child_stop(&p->child);
		printf("%u passed, %u failed\n", passed, failed);
		return failed ? 1 : 0;
	}

	struct candidate_counts counts = { 0 }, again = { 0 };
	uint16_t opcodes[CANDIDATE_OPCODES_MAX];
	unsigned nopcodes = candidate_opcodes(opcodes);
	double verify_secs = 0, run_secs = 0;
	for (unsigned i = shard; i < nopcodes; i += nshards)
		if (only_opcode < 0 || opcodes[i] == only_opcode)
			prove_opcode(p, opcodes[i], &counts, &again, &verify_secs, &run_secs);
	window_child_stop(&p->child);
	report(p, &counts, verify_secs, run_secs);
	for (unsigned i = 0; i < p->nforms; i++)
		if (p->forms[i].escapes || p->forms[i].broken)
			return 1;
	return p->runs && !p->broken ? 0 : 1;
}
