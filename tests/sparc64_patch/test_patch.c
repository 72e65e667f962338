// SPDX-License-Identifier: BSD-2-Clause
/*
 * Executes SPARC code patches under qemu-sparc64 (a static sparc64 Linux
 * program; tests/integration/test_sparc64_patch.py runs it). For each
 * sample function (samples.c, annul.S) and each of its instructions:
 *   1. copy the function into an RWX buffer (its calls rewritten for the
 *      new place), run the copy on every argument pair: the results must
 *      equal the original's;
 *   2. build a counter patch (arch/sparc64/patch/) at the instruction,
 *      write `ba,a patch` over it, flush, run the copy again: same results,
 *      the count recorded; or the refusal's reason, tallied;
 *   3. the same with the patch 16 MB away, beyond ba,a's reach: the site
 *      branches to a springboard slot near it (patch_springboard), whose
 *      long jump reaches the patch, and the patch jumps back long; the
 *      count must equal the near patch's;
 *   4. check the counts: the entry instruction ran once per call, and
 *      every instruction of a basic block (leaders: the entry, branch
 *      targets, the word after a delay slot) counted what its leader did.
 * Output: one line per refusal reason with its count, then
 * `N passed, M failed`.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <arch/patch.h>
#include "sizes.h"

#define NARGS 6
static const long args[NARGS][2] = { { 0, 0 }, { 1, 2 }, { 5, 3 }, { -4, 7 }, { 3, 3 }, { 10, -10 } };

typedef long (*sample_fn)(long, long);

static unsigned long passed, failed, spliced, through_springboards;
static uint8_t *far_patch;	/* 16 MB from the buffer: beyond ba,a's reach */

#define SLOT_OFFSET 0x10000	/* the springboard slot, in the buffer: within reach */
static uint64_t counter;

#define MAX_REASONS 16
static const char *reasons[MAX_REASONS];
static unsigned reason_count[MAX_REASONS];

static void refused(const char *why)
{
	for (int i = 0; i < MAX_REASONS; i++) {
		if (!reasons[i])
			reasons[i] = why;
		if (reasons[i] == why) {
			reason_count[i]++;
			return;
		}
	}
}

static void check(bool ok, const char *what, const char *fn, long idx)
{
	if (ok) {
		passed++;
		return;
	}
	failed++;
	printf("FAIL %s: %s at word %ld\n", fn, what, idx);
}

static void flush_range(void *p, size_t len)
{
	for (size_t i = 0; i < len; i += 8)
		__asm__ volatile("flush %0" : : "r"((char *)p + i) : "memory");
}

/* Step 1: the function at dst, its PC-relative words leaving it re-aimed. */
static bool copy_fn(uint32_t *dst, const uint32_t *src, size_t n)
{
	uint64_t from = (uint64_t)(uintptr_t)src, to = (uint64_t)(uintptr_t)dst;
	struct insn in;

	memcpy(dst, src, 4 * n);
	for (size_t i = 0; i < n; i++) {
		if (insn_decode(&in, src[i], from + 4 * i) != INSN_OK || !in.disp_bits)
			continue;
		if (in.target >= from && in.target < from + 4 * n)
			continue;
		if (in.cf != INSN_CF_CALL)
			return false;
		dst[i] = sparc_enc_call(to + 4 * i, in.target);
	}
	return true;
}

static void run(sample_fn f, long out[NARGS])
{
	for (int i = 0; i < NARGS; i++)
		out[i] = f(args[i][0], args[i][1]);
}

/* How many times s_fib runs for n (it recurses through the copy). */
static long fib_calls(long n)
{
	return n < 2 ? 1 : 1 + fib_calls(n - 1) + fib_calls(n - 2);
}

static void test_fn(const struct sample *s, uint32_t *buf)
{
	size_t n = s->size / 4;
	const uint32_t *src = (const uint32_t *)s->addr;
	uint32_t *patch = buf + ((n + 7) & ~(size_t)7);
	long want[NARGS], got[NARGS];
	long *count = calloc(n, sizeof(*count));
	bool *leader = calloc(n, sizeof(*leader));
	struct insn in;

	run((sample_fn)s->addr, want);
	check(copy_fn(buf, src, n), "copy", s->name, 0);
	flush_range(buf, 4 * n);
	run((sample_fn)(uintptr_t)buf, got);
	check(!memcmp(want, got, sizeof(want)), "copy returns the original's results", s->name, 0);
	for (size_t i = 0; i < n; i++) {
		struct patch_buf b;
		uint64_t fn_at = (uint64_t)(uintptr_t)buf, site = fn_at + 4 * i;
		const char *why;

		count[i] = -1;
		if (getenv("VERBOSE"))
			printf("%s word %zu\n", s->name, i);
		/* 2. A fresh copy, the patch, the splice. */
		copy_fn(buf, src, n);
		patch_buf_init(&b, patch, 1024, (uint64_t)(uintptr_t)patch);
		why = patch_build_counter(&b, buf, fn_at, n, site, (uint64_t)(uintptr_t)&counter);
		if (why) {
			refused(why);
			continue;
		}
		if (!patch_ba_a(&buf[i], site, b.runs_at)) {
			refused("the patch is beyond ba's disp22 reach");
			continue;
		}
		flush_range(patch, b.len);
		flush_range(buf, 4 * n);
		counter = 0;
		run((sample_fn)(uintptr_t)buf, got);
		spliced++;
		check(!memcmp(want, got, sizeof(want)), "patched copy returns the original's results",
		      s->name, (long)i);
		count[i] = (long)counter;

		/* 3. The patch far away, reached through a springboard. */
		copy_fn(buf, src, n);
		patch_buf_init(&b, far_patch, 1024, (uint64_t)(uintptr_t)far_patch);
		why = patch_build_counter(&b, buf, fn_at, n, site, (uint64_t)(uintptr_t)&counter);
		uint8_t *slot = (uint8_t *)buf + SLOT_OFFSET;
		check(!why, "the far patch builds where the near one did", s->name, (long)i);
		patch_springboard(slot, (uint64_t)(uintptr_t)slot, b.runs_at);
		check(!patch_ba_a(&buf[i], site, b.runs_at) && patch_ba_a(&buf[i], site,
		      (uint64_t)(uintptr_t)slot), "the site reaches the slot, not the far patch",
		      s->name, (long)i);
		flush_range(far_patch, b.len);
		flush_range(slot, PATCH_SPRINGBOARD_LEN);
		flush_range(buf, 4 * n);
		counter = 0;
		run((sample_fn)(uintptr_t)buf, got);
		through_springboards++;
		check(!memcmp(want, got, sizeof(want)), "through a springboard: the original's results",
		      s->name, (long)i);
		check((long)counter == count[i], "through a springboard: the near patch's count",
		      s->name, (long)i);
	}
	/* 3. Leaders, then the counts. */
	leader[0] = true;
	for (size_t i = 0; i < n; i++) {
		uint64_t a = s->addr + 4 * i;
		if (insn_decode(&in, src[i], a) != INSN_OK)
			continue;
		if (in.disp_bits && in.target >= s->addr && in.target < s->addr + 4 * n)
			leader[(in.target - s->addr) / 4] = true;
		if (in.delayed && i + 2 < n)
			leader[i + 2] = true;
		if (in.delayed && i + 1 < n)
			leader[i + 1] = true;	/* its own block: an annulled slot counts apart */
	}
	long calls = 0;
	for (int a = 0; a < NARGS; a++)
		calls += strcmp(s->name, "s_fib") ? 1 : fib_calls(args[a][0] & 15);
	check(count[0] == calls, "the entry counted once per call", s->name, 0);
	long block = -1;
	for (size_t i = 0; i < n; i++) {
		if (leader[i])
			block = count[i];
		else if (count[i] >= 0 && block >= 0)
			check(count[i] == block, "a block's instructions counted alike", s->name, (long)i);
	}
	/* s_annul is hand-written: its counts are known (-1: a refused delay slot). */
	static const long annul_want[] = { 6, 6, 6, -1, 6, -1, 6, -1, 6, -1, 6, 6, -1, 4, 6, -1,
					   6, -1, 1, 6, -1, 0, 6, -1 };
	if (!strcmp(s->name, "s_annul")) {
		check(n == sizeof(annul_want) / sizeof(annul_want[0]), "s_annul's length", s->name, 0);
		for (size_t i = 0; i < n && i < sizeof(annul_want) / sizeof(annul_want[0]); i++)
			check(count[i] == annul_want[i], "the hand-computed count", s->name, (long)i);
	}
	printf("%s: %zu words, counts", s->name, n);
	for (size_t i = 0; i < n; i++)
		printf(" %ld", count[i]);
	printf("\n");
	free(count);
	free(leader);
}

/* Refusals on synthetic words: a delay slot that is a branch target, a CTI couple, reach. */
static void test_refusals(uint32_t *buf)
{
	uint64_t at = (uint64_t)(uintptr_t)buf;
	struct patch_buf b;
	const char *why;
	uint32_t w;

	patch_ba_a(&buf[0], at, at + 4);		/* ba,a to its own delay slot */
	buf[1] = sparc_enc_nop();
	patch_buf_init(&b, buf + 8, 256, at + 32);
	why = patch_relocate(&b, buf, at, 2, at);
	check(why && strstr(why, "branch target"), "a delay slot that is a target is refused", "synthetic", 0);
	patch_ba_a(&buf[0], at, at + 8);		/* ba,a with ba,a in its delay slot */
	patch_ba_a(&buf[1], at + 4, at + 8);
	buf[2] = sparc_enc_nop();
	patch_buf_init(&b, buf + 8, 256, at + 32);
	why = patch_relocate(&b, buf, at, 3, at);
	check(why && strstr(why, "CTI couple"), "a CTI couple is refused", "synthetic", 1);
	buf[0] = sparc_enc_nop();
	patch_buf_init(&b, buf + 8, 256, at + (16u << 20));	/* a patch 16 MB away */
	why = patch_relocate(&b, buf, at, 1, at);
	check(!why && sparc_word_at(b.code + 4) == sparc_enc_save_imm(INSN_SP, -176, INSN_SP),
	      "a branch back beyond 8 MB is a long jump (save; sethi; jmpl; restore)", "synthetic", 2);
	check(!patch_ba_a(&w, at, at + (8u << 20)) && patch_ba_a(&w, at, at + (8u << 20) - 4),
	      "ba,a reaches exactly +8 MB - 4", "synthetic", 3);
}

int main(void)
{
	uint32_t *buf;

	setvbuf(stdout, NULL, _IONBF, 0);
	buf = mmap((void *)0x20000000, 1 << 20, PROT_READ | PROT_WRITE | PROT_EXEC,
			     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	far_patch = mmap((void *)(0x20000000 + (16ul << 20)), 1 << 16,
			 PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (buf == MAP_FAILED || far_patch == MAP_FAILED) {
		printf("mmap RWX failed\n0 passed, 1 failed\n");
		return 1;
	}
	for (size_t i = 0; i < sizeof(samples) / sizeof(samples[0]); i++)
		test_fn(&samples[i], buf);
	test_refusals(buf);
	printf("spliced %lu instructions, %lu of them again through springboards\n", spliced,
	       through_springboards);
	for (int i = 0; i < MAX_REASONS && reasons[i]; i++)
		printf("refused %u: %s\n", reason_count[i], reasons[i]);
	printf("%lu passed, %lu failed\n", passed, failed);
	return failed != 0;
}
