// SPDX-License-Identifier: BSD-2-Clause
/*
 * The SPARC V9 half of the in-kernel probe tests (test_probe.c has the
 * portable half), on the fixtures of arch/sparc64/ktest_fixtures.S:
 *   - exact counts at every instruction of functions with every branch
 *     kind, delay slots (annulled and not), calls, returns, save/restore
 *     and rd %pc, three ways: every word at once (delay slots and their
 *     CTIs as ta probes, the rest spliced), every word but the delay
 *     slots (all spliced; handlers, so each hit runs the frame call), and
 *     every word as a ta probe; the results stay those of the unprobed
 *     functions, and the text is the booted image after each;
 *   - the same with every patch in the far arena, through springboards;
 *   - the protocol's intermediate states: a splice is one store, made at
 *     step 4, a ta at step 1;
 *   - refusals: every instruction that runs at TL > 0, a word's middle, a
 *     delay slot inside a splice;
 *   - the return value at fbt return probes (arch_probe_return_value):
 *     spliced and as ta probes, at fixtures leaving every SPARC way (retl
 *     computing it in the slot, ret; restore plain and computing, V9
 *     return) and at compiled functions, the value seen equals the result.
 * Left out of other ports' test kernels (their arch.mk).
 */
#include <scion/ktest.h>
#include <scion/probe.h>
#include <scion/probe_arch.h>
#include <scion/symtab.h>
#include <scion/errno.h>
#include <scion/mm.h>
#include <scion/printk.h>
#include <arch/insn.h>
#include <arch/patch.h>
#include "probe_test.h"

extern long s_annul(long a, long b);
extern long kf_loop(long n);
extern long kf_leaf(long x);
extern long kf_indirect(long x);
extern char __tl1_start[], __tl1_end[];

/* What one run of the workload below executes at each word (counted by hand). */
static const long annul_counts[] = { 6, 6, 6, 4, 6, 1, 6, 6, 6, 0, 6, 6,
				     6, 4, 6, 0, 6, 6, 1, 6, 6, 0, 6, 6 };
static const long loop_counts[] = { 3, 3, 3, 3, 3, 3, 6, 6, 6, 6, 6, 6, 6, 3, 3 };
static const long leaf_counts[] = { 8, 8, 8 };
static const long rip_counts[] = { 2, 2, 2, 2, 2, 2, 2, 2, 2 };
static const long indirect_counts[] = { 2, 2, 2, 2, 2, 2, 2 };

static const struct fixture {
	const char *name;
	const void *addr;
	const long *counts;
	unsigned words;
} fixtures[] = {
	{ "s_annul", s_annul, annul_counts, ARRAY_SIZE(annul_counts) },
	{ "kf_loop", kf_loop, loop_counts, ARRAY_SIZE(loop_counts) },
	{ "kf_leaf", kf_leaf, leaf_counts, ARRAY_SIZE(leaf_counts) },
	{ "pf_rip", pf_rip, rip_counts, ARRAY_SIZE(rip_counts) },
	{ "kf_indirect", kf_indirect, indirect_counts, ARRAY_SIZE(indirect_counts) },
};

#define MAX_WORDS 64

/* The workload the counts above describe; its results, hashed. */
static uint64_t workload(void)
{
	static const long args[][2] = { { 0, 0 }, { 1, 2 }, { 5, 3 }, { -4, 7 }, { 3, 3 }, { 10, -10 } };
	uint64_t h = 14695981039346656037ull;

#define MIX(v) (h = (h ^ (uint64_t)(v)) * 1099511628211ull)
	for (size_t i = 0; i < ARRAY_SIZE(args); i++)
		MIX(s_annul(args[i][0], args[i][1]));
	MIX(kf_loop(0));
	MIX(kf_loop(1));
	MIX(kf_loop(5));
	MIX(pf_rip(1));
	MIX(pf_rip(2));
	MIX(kf_indirect(2));
	MIX(kf_indirect(7));
#undef MIX
	return h;
}

static bool is_delay_slot(const struct fixture *f, unsigned i)
{
	struct insn prev;
	uint64_t at = (uintptr_t)f->addr + 4 * (i - 1);

	return i > 0 && insn_decode(&prev, sparc_word_at(text_image_bytes(at)), at) == INSN_OK &&
	       prev.delayed;
}

enum pass_kind {
	PASS_EVERY_WORD,	/* counters at every word; mechanism as the probes choose */
	PASS_NO_DELAY_SLOTS,	/* handlers at every word but the delay slots: all spliced */
	PASS_ALL_TA,		/* counters at every word, each a ta probe */
};

struct pass_site {
	const struct fixture *f;
	unsigned word;
	uint64_t *counter;	/* counting passes */
	uint64_t hits;		/* the handler pass */
	struct probe_consumer c;
	bool enabled;
};

/* The mechanism a pass expects at a word (none is refused). */
static enum probe_mechanism expected_mechanism(enum pass_kind kind, bool cti, bool slot)
{
	if (kind == PASS_NO_DELAY_SLOTS)
		return PROBE_MECH_JUMP;
	if (kind == PASS_ALL_TA)
		return PROBE_MECH_BREAKPOINT;
	/* Every word: a CTI's slot is probed too, so the CTI cannot splice over it. */
	return cti || slot ? PROBE_MECH_BREAKPOINT : PROBE_MECH_JUMP;
}

static void run_pass(struct ktest_ctx *t, enum pass_kind kind, uint64_t expected_hash, bool far)
{
	static const char *const names[] = { "every word", "every word but delay slots", "every word a ta" };
	struct pass_site *s = kzalloc(MAX_WORDS * 2 * sizeof(*s));
	struct probe **probes = kzalloc(MAX_WORDS * 2 * sizeof(*probes));
	struct probe_consumer **cs = kzalloc(MAX_WORDS * 2 * sizeof(*cs));
	unsigned n = 0, jumps = 0, tas = 0, springboards = 0;

	KT_ASSERT(t, s && probes && cs, "no memory");
	for (size_t k = 0; k < ARRAY_SIZE(fixtures); k++) {
		const struct fixture *f = &fixtures[k];
		for (unsigned i = 0; i < f->words; i++) {
			if (kind == PASS_NO_DELAY_SLOTS && is_delay_slot(f, i))
				continue;
			struct pass_site *p = &s[n];
			p->f = f;
			p->word = i;
			probes[n] = probe_at((const char *)f->addr + 4 * i);
			KT_ASSERT(t, probes[n], "%s+%u: no probe", f->name, 4 * i);
			enum probe_mechanism mech = kind == PASS_ALL_TA ? PROBE_MECH_BREAKPOINT
								       : PROBE_MECH_AUTO;
			if (kind == PASS_NO_DELAY_SLOTS) {
				p->c = handler_consumer(&p->hits, PROBE_MECH_JUMP);
			} else {
				p->counter = probe_counter_alloc();
				KT_ASSERT(t, p->counter, "no counter memory");
				p->c = count_consumer(p->counter, mech);
			}
			cs[n] = &p->c;
			n++;
		}
	}
	probe_enable_batch(probes, cs, n);
	for (unsigned i = 0; i < n; i++) {
		struct pass_site *p = &s[i];
		uintptr_t at = (uintptr_t)p->f->addr + 4 * p->word;
		struct insn in;
		insn_decode(&in, sparc_word_at(text_image_bytes(at)), at);
		enum probe_mechanism want = expected_mechanism(kind, in.delayed,
							       is_delay_slot(p->f, p->word));
		struct probe_site_info info;
		p->enabled = p->c.probe != NULL;
		probe_site_info(at, &info);
		KT_EXPECT(t, p->enabled && info.mechanism == want,
			  "%s: %s+%u: enabled %d, mechanism %s (want %s)", names[kind], p->f->name,
			  4 * p->word, p->enabled, probe_mechanism_name(info.mechanism),
			  probe_mechanism_name(want));
		jumps += info.mechanism == PROBE_MECH_JUMP;
		tas += info.mechanism == PROBE_MECH_BREAKPOINT;
		/* Far patches: every splice through a springboard, every patch beyond ba,a. */
		bool in_far = info.patch >= PATCH_FAR_CODE_BASE &&
			      info.patch < PATCH_FAR_CODE_BASE + PATCH_FAR_CODE_SIZE;
		KT_EXPECT(t, in_far == far, "%s: %s+%u: patch at 0x%llx, far %d", names[kind],
			  p->f->name, 4 * p->word, (unsigned long long)info.patch, far);
		KT_EXPECT(t, (info.mechanism == PROBE_MECH_JUMP && far) == (info.springboard != 0),
			  "%s: %s+%u: springboard 0x%llx", names[kind], p->f->name, 4 * p->word,
			  (unsigned long long)info.springboard);
		springboards += info.springboard != 0;
	}
	uint64_t got = workload();
	KT_EXPECT(t, got == expected_hash, "%s: the fixtures' results changed while probed", names[kind]);
	unsigned exact = 0, k = 0;
	for (unsigned i = 0; i < n; i++) {
		struct pass_site *p = &s[i];
		if (!p->enabled)
			continue;
		long want = p->f->counts[p->word];
		long seen = (long)(p->counter ? *p->counter : p->hits);
		KT_EXPECT(t, seen == want, "%s: %s+%u ran %ld times, counted %ld", names[kind],
			  p->f->name, 4 * p->word, want, seen);
		exact += seen == want;
		cs[k++] = &p->c;
	}
	probe_disable_batch(cs, k);
	KT_EXPECT(t, workload() == expected_hash, "%s: results changed after disabling", names[kind]);
	KT_EXPECT(t, text_identical(), "%s: text differs from the booted image", names[kind]);
	printk("%s%s: %u words probed (%u spliced, %u through springboards, %u ta), %u counts "
	       "exact\n", names[kind], far ? ", far patches" : "", n, jumps, springboards, tas, exact);
	for (unsigned i = 0; i < n; i++)
		probe_counter_free(s[i].counter);
	kfree(s);
	kfree(probes);
	kfree(cs);
}

KTEST(sparc64_probe_exact_counts, 1)
{
	uint64_t expected = workload();

	KT_EXPECT(t, pf_rip(5) == 1005, "pf_rip(5) is %llu, not 1005, unprobed",
		  (unsigned long long)pf_rip(5));
	run_pass(t, PASS_EVERY_WORD, expected, false);
	run_pass(t, PASS_NO_DELAY_SLOTS, expected, false);
	run_pass(t, PASS_ALL_TA, expected, false);
}

/*
 * The same counts with every patch in the far arena, 1.4 GB from the text
 * (beyond ba,a's 8 MB): each splice branches to a springboard slot in the
 * reclaimed boot-only text and padding, whose long jump reaches the
 * patch; the patches jump back long. A second consumer at a spliced site
 * gives it a new patch through the same slot (only the slot's address
 * changes). Every slot gets its booted bytes back.
 */
KTEST(sparc64_probe_springboards, 1)
{
	uint64_t expected = workload(), hits = 0, *counter = probe_counter_alloc();
	struct probe_site_info first, second;

	KT_ASSERT(t, counter, "no counter memory");
	probe_set_far_patches(true);
	run_pass(t, PASS_EVERY_WORD, expected, true);
	run_pass(t, PASS_NO_DELAY_SLOTS, expected, true);

	struct probe *mid = probe_at(pf_sum_mid);
	KT_ASSERT(t, mid, "no probe at pf_sum_mid");
	struct probe_consumer c1 = count_consumer(counter, PROBE_MECH_JUMP);
	struct probe_consumer c2 = handler_consumer(&hits, PROBE_MECH_JUMP);
	KT_ASSERT(t, probe_enable(mid, &c1) == 0, "the far splice was refused");
	probe_site_info((uintptr_t)pf_sum_mid, &first);
	KT_ASSERT(t, probe_enable(mid, &c2) == 0, "a second consumer was refused");
	probe_site_info((uintptr_t)pf_sum_mid, &second);
	KT_EXPECT(t, first.springboard && second.springboard == first.springboard &&
		     second.patch != first.patch, "rebuilt: slot 0x%llx then 0x%llx, patch 0x%llx then 0x%llx",
		  (unsigned long long)first.springboard, (unsigned long long)second.springboard,
		  (unsigned long long)first.patch, (unsigned long long)second.patch);
	KT_EXPECT(t, pf_sum(3, 4) == pf_sum_expected(3, 4) && *counter == 1 && hits == 1,
		  "rebuilt: count %llu, hits %llu", (unsigned long long)*counter,
		  (unsigned long long)hits);
	probe_disable(&c2);
	probe_disable(&c1);
	probe_set_far_patches(false);
	probe_counter_free(counter);
	KT_EXPECT(t, text_identical(), "text differs from the booted image");
}

/* What the protocol test sees after each step of a commit. */
struct step_record {
	uint32_t word[5];	/* the site's word after step 1..4 */
	uint64_t count[5];	/* the counter after a call at each */
	uint64_t *counter;
	bool wrong_result;
};

static void observe_step(unsigned step, void *arg)
{
	struct step_record *r = arg;
	r->word[step] = sparc_word_at(pf_sum_mid);
	r->wrong_result |= pf_sum(5, 6) != pf_sum_expected(5, 6);
	r->count[step] = *r->counter;
}

/*
 * A splice is one store, at step 4; nothing is written before it (the
 * patch is complete first); removal restores the word at step 4. A ta
 * probe's word is written at step 1 and restored at step 1.
 */
KTEST(sparc64_probe_protocol_steps, 1)
{
	struct probe *mid = probe_at(pf_sum_mid);
	uint64_t *counter = probe_counter_alloc();
	struct step_record r = { .counter = counter };
	struct probe_site_info info;
	uint32_t orig = sparc_word_at(pf_sum_mid), ba;

	KT_ASSERT(t, mid && counter, "no probe or counter");
	struct probe_consumer c = count_consumer(counter, PROBE_MECH_JUMP);
	probe_set_step_observer(observe_step, &r);
	KT_ASSERT(t, probe_enable(mid, &c) == 0, "the splice was refused");
	probe_site_info((uintptr_t)pf_sum_mid, &info);
	KT_ASSERT(t, patch_ba_a(&ba, (uintptr_t)pf_sum_mid, info.patch), "the patch is out of reach");
	KT_EXPECT(t, r.word[1] == orig && r.word[3] == orig && r.word[4] == ba,
		  "install: words 0x%08x 0x%08x 0x%08x, want 0x%08x 0x%08x 0x%08x", r.word[1], r.word[3],
		  r.word[4], orig, orig, ba);
	KT_EXPECT(t, r.count[1] == 0 && r.count[3] == 0 && r.count[4] == 1,
		  "install: counts %llu %llu %llu", (unsigned long long)r.count[1],
		  (unsigned long long)r.count[3], (unsigned long long)r.count[4]);
	*counter = 0;
	probe_disable(&c);
	KT_EXPECT(t, r.word[1] == ba && r.word[3] == ba && r.word[4] == orig,
		  "remove: words 0x%08x 0x%08x 0x%08x", r.word[1], r.word[3], r.word[4]);
	KT_EXPECT(t, r.count[1] == 1 && r.count[3] == 2 && r.count[4] == 2,
		  "remove: counts %llu %llu %llu", (unsigned long long)r.count[1],
		  (unsigned long long)r.count[3], (unsigned long long)r.count[4]);

	*counter = 0;
	struct probe_consumer b = count_consumer(counter, PROBE_MECH_BREAKPOINT);
	KT_ASSERT(t, probe_enable(mid, &b) == 0, "the ta probe was refused");
	KT_EXPECT(t, patch_is_breakpoint_word(r.word[1]) && r.count[1] == 1,
		  "ta install: word 0x%08x after step 1, count %llu", r.word[1],
		  (unsigned long long)r.count[1]);
	probe_disable(&b);
	KT_EXPECT(t, r.word[1] == orig, "ta removal: word 0x%08x after step 1", r.word[1]);
	probe_set_step_observer(NULL, NULL);
	KT_EXPECT(t, !r.wrong_result, "pf_sum computed a wrong result at some step");
	probe_counter_free(counter);
	KT_EXPECT(t, text_identical(), "text differs from the booted image");
}

/* Every word that runs at TL > 0 is refused with the reason; so are the other bad places. */
KTEST(sparc64_probe_refusals, 1)
{
	const char *why = NULL;
	unsigned words = 0, refused = 0;
	uint64_t hits = 0, hits2 = 0;

	for (uintptr_t a = (uintptr_t)__tl1_start; a < (uintptr_t)__tl1_end; a += 4) {
		words++;
		if (probe_check_address(a, &why) == -EINVAL && strstr(why, "trap level above zero"))
			refused++;
	}
	KT_EXPECT(t, words > 1000 && refused == words, "TL > 0: %u of %u words refused", refused, words);
	char spec[96];
	KT_EXPECT(t, !probe_named(ksym_format((uintptr_t)__tl1_start + 0x40, spec, sizeof(spec))),
		  "a probe was created in the trap table");
	printk("sparc64_probe_refusals: %u words run at TL > 0, every one refused\n", words);

	KT_EXPECT(t, probe_check_address((uintptr_t)pf_sum + 2, &why) == -EINVAL &&
		     strstr(why, "boundary"), "the middle of a word was accepted");
	KT_EXPECT(t, probe_check_address((uintptr_t)probe_breakpoint, &why) == -EINVAL &&
		     strstr(why, "probe machinery"), "the breakpoint handler was accepted");

	/* pf_sum_late is retl: its splice detours its delay slot, which no probe may then take. */
	struct probe *late = probe_at(pf_sum_late), *slot = probe_at(pf_sum_late + 4);
	KT_ASSERT(t, late && slot, "fixture probes missing");
	struct probe_consumer c1 = handler_consumer(&hits, PROBE_MECH_JUMP);
	struct probe_consumer c2 = handler_consumer(&hits2, PROBE_MECH_AUTO);
	KT_ASSERT(t, probe_enable(late, &c1) == 0, "the splice at retl was refused");
	KT_EXPECT(t, probe_enable(slot, &c2) != 0 && !c2.probe,
		  "a probe in the delay slot of a spliced CTI was accepted");
	KT_EXPECT(t, pf_sum(2, 3) == pf_sum_expected(2, 3) && hits == 1, "spliced retl: %llu hits",
		  (unsigned long long)hits);
	probe_disable(&c1);

	/* A delay slot alone is a ta probe, and then its CTI cannot splice over it. */
	KT_ASSERT(t, probe_enable(slot, &c2) == 0, "a ta probe in a delay slot was refused");
	struct probe_site_info info;
	probe_site_info((uintptr_t)pf_sum_late + 4, &info);
	KT_EXPECT(t, info.mechanism == PROBE_MECH_BREAKPOINT && info.why_not_jump &&
		     strstr(info.why_not_jump, "delay slot"), "the delay slot: mechanism %s, why %s",
		  probe_mechanism_name(info.mechanism), info.why_not_jump ? info.why_not_jump : "-");
	KT_EXPECT(t, probe_enable(late, &c1) != 0 && !c1.probe,
		  "a splice over a probed delay slot was accepted");
	KT_EXPECT(t, pf_sum(4, 1) == pf_sum_expected(4, 1) && hits2 == 1,
		  "ta in a delay slot: %llu hits", (unsigned long long)hits2);
	probe_disable(&c2);

	KT_EXPECT(t, text_identical(), "text differs from the booted image");
}

/* arch/sparc64/ktest_fixtures.S: the return-value fixtures (each ignores what it does not use). */
extern long kr_retl_mov(long x, long y);
extern long kr_retl_or(long x, long y);
extern long kr_retl_sethi(long x, long y);
extern long kr_retl_add(long x, long y);
extern long kr_retl_sllx(long x, long y);
extern long kr_retl_sra(long x, long y);
extern long kr_retl_xor(long x, long y);
extern long kr_retl_andn(long x, long y);
extern long kr_ret_restore(long x, long y);
extern long kr_ret_restore_sum(long x, long y);
extern long kr_ret_restore_imm(long x, long y);
extern long kr_return_add(long x, long y);
extern long kr_return_sub(long x, long y);
extern long kr_return_plain(long x, long y);

/*
 * Compiled return sites: what gcc itself puts in the delay slots. noipa
 * keeps each a real call with its own return (no clone, no value
 * propagated into the caller).
 */
long kr_c_const(long x, long y);
long kr_c_mix(long x, long y);
long kr_c_window(long x, long y);
long kr_c_cond(long x, long y);

__used __noinline __attribute__((noipa)) long kr_c_const(long x, long y)
{
	(void)x;
	(void)y;
	return 77;
}

__used __noinline __attribute__((noipa)) long kr_c_mix(long x, long y)
{
	return (x << 4) ^ y;
}

__used __noinline __attribute__((noipa)) long kr_c_window(long x, long y)
{
	return kr_c_mix(x, y) + 1;
}

__used __noinline __attribute__((noipa)) long kr_c_cond(long x, long y)
{
	return x > y ? x * 3 : y - 1000;
}

static const struct ret_fixture {
	const char *name;
	long (*fn)(long, long);
} ret_fixtures[] = {
	{ "kr_retl_mov", kr_retl_mov },
	{ "kr_retl_or", kr_retl_or },
	{ "kr_retl_sethi", kr_retl_sethi },
	{ "kr_retl_add", kr_retl_add },
	{ "kr_retl_sllx", kr_retl_sllx },
	{ "kr_retl_sra", kr_retl_sra },
	{ "kr_retl_xor", kr_retl_xor },
	{ "kr_retl_andn", kr_retl_andn },
	{ "kr_ret_restore", kr_ret_restore },
	{ "kr_ret_restore_sum", kr_ret_restore_sum },
	{ "kr_ret_restore_imm", kr_ret_restore_imm },
	{ "kr_return_add", kr_return_add },
	{ "kr_return_sub", kr_return_sub },
	{ "kr_return_plain", kr_return_plain },
	{ "kr_c_const", kr_c_const },
	{ "kr_c_mix", kr_c_mix },
	{ "kr_c_window", kr_c_window },
	{ "kr_c_cond", kr_c_cond },
};

/* Arguments each fixture is called with: signs and widths that tell the operations apart. */
static const long ret_args[][2] = {
	{ 0, 0 }, { 5, 3 }, { -10, 7 }, { 0x123456789, -2 }, { 40, 50 }, { (long)0x80000001, 1 },
};

/* What one fbt return probe's handler saw last. */
struct ret_record {
	uint64_t value;
	uint64_t o0;		/* %o0 at the site: the value before the slot and the restore */
	uint64_t hits;
};

static void record_return(const struct probe_hit *hit, void *arg)
{
	struct ret_record *r = arg;

	r->value = arch_probe_return_value(hit->regs, hit->addr);
	r->o0 = trap_frame_retval(hit->regs);
	r->hits++;
}

/*
 * One mechanism over every fixture: the number of calls whose value
 * matched; *o0_wrong, how many of them %o0 at the site would have got wrong.
 */
static unsigned return_values_pass(struct ktest_ctx *t, enum probe_mechanism mech,
				   unsigned *o0_wrong)
{
	unsigned matched = 0;

	for (size_t k = 0; k < ARRAY_SIZE(ret_fixtures); k++) {
		const struct ret_fixture *f = &ret_fixtures[k];
		char spec[96];
		struct ret_record r = { 0, 0, 0 };
		struct probe_consumer c = { .action = PROBE_HANDLER, .handler = record_return,
					    .arg = &r, .mechanism = mech };

		snprintf(spec, sizeof(spec), "fbt:kernel:%s:return", f->name);
		struct probe *p = probe_named(spec);
		KT_EXPECT(t, p, "no probe %s", spec);
		if (!p)
			continue;
		int err = probe_enable(p, &c);
		KT_EXPECT(t, err == 0, "%s (%s): enable failed (%d)", spec,
			  probe_mechanism_name(mech), err);
		if (err)
			continue;
		for (size_t i = 0; i < ARRAY_SIZE(ret_args); i++) {
			uint64_t before = r.hits;
			long got = f->fn(ret_args[i][0], ret_args[i][1]);
			bool ok = r.hits == before + 1 && r.value == (uint64_t)got;
			KT_EXPECT(t, ok, "%s(%ld, %ld) (%s): returned 0x%llx, the probe saw 0x%llx "
				  "(%llu hits)", f->name, ret_args[i][0], ret_args[i][1],
				  probe_mechanism_name(mech), (unsigned long long)got,
				  (unsigned long long)r.value, (unsigned long long)(r.hits - before));
			matched += ok;
			*o0_wrong += ok && r.o0 != (uint64_t)got;
		}
		probe_disable(&c);
	}
	return matched;
}

/*
 * The value at fbt return probes is the function's result, whichever way
 * it leaves (probe_return.c): every fixture called with every argument
 * pair, its return probe spliced, then as a ta probe.
 */
KTEST(sparc64_probe_return_values, 1)
{
	unsigned calls = ARRAY_SIZE(ret_fixtures) * ARRAY_SIZE(ret_args);
	unsigned spliced_o0 = 0, tas_o0 = 0;
	unsigned spliced = return_values_pass(t, PROBE_MECH_JUMP, &spliced_o0);
	unsigned tas = return_values_pass(t, PROBE_MECH_BREAKPOINT, &tas_o0);

	printk("sparc64_probe_return_values: %u of %u spliced, %u of %u ta return values right "
	       "(%%o0 at the site: %u and %u wrong)\n", spliced, calls, tas, calls, spliced_o0, tas_o0);
	/* The fixtures must be ones where the value is not in %o0 yet, or this proves nothing. */
	KT_EXPECT(t, spliced_o0 > calls / 2 && tas_o0 > calls / 2,
		  "only %u and %u calls had their value elsewhere than %%o0", spliced_o0, tas_o0);
	KT_EXPECT(t, text_identical(), "text differs from the booted image");
}
