// SPDX-License-Identifier: BSD-2-Clause
/*
 * In-kernel tests of text_poke: it changes running text and leaves it
 * read-only; it refuses ranges outside kernel text; and under load, with
 * other CPUs calling the function being rewritten, every call returns
 * one of the two forms' values. (Run under single-threaded TCG: see
 * PLATFORMS.md on QEMU's cross-modifying-code hazard.)
 */
#include <scion/ktest.h>
#include <scion/textpoke.h>
#include <scion/thread.h>
#include <scion/cpu.h>
#include <scion/string.h>
#include <scion/errno.h>
#include <arch/mmu.h>

extern int poke_target(void);
extern char poke_target_insn[], poke_target_insn_end[];
extern const char poke_alt_insn[], poke_alt_insn_end[];
static uint64_t not_text;

#define POKES_UNDER_LOAD 10000

static size_t insn_len(void)
{
	return (size_t)(poke_target_insn_end - poke_target_insn);
}

KTEST(poke_changes_running_text, 1)
{
	uint8_t original[16];
	size_t len = insn_len();

	KT_ASSERT(t, len == (size_t)(poke_alt_insn_end - poke_alt_insn) && len <= sizeof(original),
		  "fixture forms differ in length");
	memcpy(original, poke_target_insn, len);
	KT_ASSERT(t, poke_target() == 1, "fixture returns %d before poking", poke_target());
	uint64_t pokes = text_poke_count();
	KT_ASSERT(t, text_poke(poke_target_insn, poke_alt_insn, len) == 0, "text_poke failed");
	KT_EXPECT(t, poke_target() == 2, "after poke the function returns %d", poke_target());
	KT_EXPECT(t, text_poke_count() == pokes + 1, "poke not counted");
	unsigned flags;
	KT_EXPECT(t, arch_translate((uintptr_t)poke_target_insn, &flags) != UINT64_MAX &&
		     !(flags & MAP_WRITE), "text is writable after a poke");
	KT_EXPECT(t, arch_translate(TEXT_ALIAS_BASE, NULL) == UINT64_MAX,
		  "the writable alias is still mapped");
	KT_ASSERT(t, text_poke(poke_target_insn, original, len) == 0, "restoring failed");
	KT_EXPECT(t, poke_target() == 1, "after restoring the function returns %d", poke_target());
	KT_EXPECT(t, !memcmp(poke_target_insn, original, len), "restored bytes differ");
}

KTEST(poke_refuses_bad_ranges, 1)
{
	uint8_t byte = 0;
	extern char __text_end[];
	char *volatile text_end = __text_end;	/* hide the bound from the compiler */

	KT_EXPECT(t, text_poke(&not_text, &byte, 1) == -EINVAL, "poke of data accepted");
	KT_EXPECT(t, text_poke(poke_target_insn, &byte, 0) == -EINVAL, "zero-length poke accepted");
	KT_EXPECT(t, text_poke(poke_target_insn, poke_alt_insn, TEXT_POKE_MAX + 1) == -EINVAL,
		  "over-long poke accepted");
	KT_EXPECT(t, text_poke(text_end - 1, poke_alt_insn, 2) == -EINVAL,
		  "poke running off the end of text accepted");
	KT_EXPECT(t, text_poke((void *)0x1000, &byte, 1) == -EINVAL, "poke of user space accepted");
	KT_EXPECT(t, poke_target() == 1, "a refused poke changed the fixture");
}

struct caller_stats {
	volatile bool *stop;
	uint64_t ones, twos, others;
};

static void call_in_loop(void *arg)
{
	struct caller_stats *s = arg;
	while (!READ_ONCE(*s->stop)) {
		int v = poke_target();
		if (v == 1)
			s->ones++;
		else if (v == 2)
			s->twos++;
		else
			s->others++;
		cpu_relax();
	}
}

KTEST(poke_under_load, 2)
{
	unsigned n = cpu_count();
	size_t len = insn_len();
	uint8_t original[16];
	struct caller_stats stats[MAX_CPUS];
	struct thread *callers[MAX_CPUS];
	volatile bool stop = false;

	memcpy(original, poke_target_insn, len);
	/* Callers on every CPU but this one; this thread stays on CPU 0. */
	for (unsigned i = 1; i < n; i++) {
		stats[i] = (struct caller_stats){ .stop = &stop };
		callers[i] = thread_create("poke-caller", call_in_loop, &stats[i], (int)i);
		KT_ASSERT(t, callers[i], "cannot create caller thread");
	}
	int failures = 0;
	for (int i = 0; i < POKES_UNDER_LOAD; i++)
		if (text_poke(poke_target_insn, (i & 1) ? (const void *)original : poke_alt_insn, len))
			failures++;
	if (POKES_UNDER_LOAD & 1)
		text_poke(poke_target_insn, original, len);
	stop = true;
	uint64_t ones = 0, twos = 0, others = 0;
	for (unsigned i = 1; i < n; i++) {
		thread_join(callers[i]);
		ones += stats[i].ones;
		twos += stats[i].twos;
		others += stats[i].others;
	}
	KT_EXPECT(t, failures == 0, "%d pokes failed", failures);
	KT_EXPECT(t, others == 0, "%llu calls returned neither form's value",
		  (unsigned long long)others);
	KT_EXPECT(t, ones > 0 && twos > 0, "callers saw %llu ones and %llu twos: both forms must run",
		  (unsigned long long)ones, (unsigned long long)twos);
	KT_EXPECT(t, !memcmp(poke_target_insn, original, len) && poke_target() == 1,
		  "fixture not restored");
}

/*
 * A batch keeps the writable alias from op to op while they stay on one
 * page (issue 28): ops that go from the fixture's page to another and
 * back, and two in a row on one page, all land, and no alias is left.
 */
KTEST(poke_batch_across_pages, 1)
{
	extern char __text_start[];
	uint8_t original[16], first = (uint8_t)__text_start[0];
	size_t len = insn_len(), half = len / 2;

	KT_ASSERT(t, len >= 2 && len <= sizeof(original), "fixture too short to split");
	KT_ASSERT(t, ALIGN_DOWN((uintptr_t)__text_start, PAGE_SIZE) !=
		     ALIGN_DOWN((uintptr_t)poke_target_insn, PAGE_SIZE), "one page for both");
	memcpy(original, poke_target_insn, len);
	/* The fixture's first half, the text's first byte (rewritten as it is), its second half. */
	const struct text_poke_op there[] = {
		{ poke_target_insn, poke_alt_insn, half },
		{ __text_start, &first, 1 },
		{ poke_target_insn + half, poke_alt_insn + half, len - half },
	};
	uint64_t pokes = text_poke_count();
	KT_ASSERT(t, text_poke_batch(there, ARRAY_SIZE(there)) == 0, "batch refused");
	KT_EXPECT(t, text_poke_count() == pokes + 3, "%llu pokes counted",
		  (unsigned long long)(text_poke_count() - pokes));
	KT_EXPECT(t, !memcmp(poke_target_insn, poke_alt_insn, len) && poke_target() == 2,
		  "the fixture is not the other form: returns %d", poke_target());
	KT_EXPECT(t, (uint8_t)__text_start[0] == first, "the text's first byte changed");
	KT_EXPECT(t, arch_translate(TEXT_ALIAS_BASE, NULL) == UINT64_MAX,
		  "the writable alias is still mapped");
	/* Back, in two ops on the same page. */
	const struct text_poke_op back[] = {
		{ poke_target_insn, original, half },
		{ poke_target_insn + half, original + half, len - half },
	};
	KT_ASSERT(t, text_poke_batch(back, ARRAY_SIZE(back)) == 0, "restoring batch refused");
	KT_EXPECT(t, !memcmp(poke_target_insn, original, len) && poke_target() == 1,
		  "restored: returns %d", poke_target());
	KT_EXPECT(t, arch_translate(TEXT_ALIAS_BASE, NULL) == UINT64_MAX,
		  "the writable alias is still mapped after restoring");
}
