// SPDX-License-Identifier: BSD-2-Clause
/*
 * In-kernel tests of outlining (scion/outline.h): copies of the CFG
 * fixtures (cfg_fixtures.S) and of C functions with error paths
 * (outline_fixtures.c, and the kernel's own parse_u64 and glob_match)
 * with chosen or counted cold blocks. Each copy has its cold blocks
 * after all the hot ones, maps every block back to the original
 * (probe_patch_origin) and computes what the original does over many
 * inputs, called directly; installed behind the entry redirect it keeps
 * giving the original's results on two CPUs while it goes in and out;
 * the text is byte for byte the booted one afterwards. Functions that
 * cannot be copied are refused with one line. (Patching tests: `probe_`
 * names keep them out of the multi-threaded TCG job.)
 */
#include <scion/ktest.h>
#include <scion/outline.h>
#include <scion/codeadapt.h>
#include <scion/cfg.h>
#include <scion/thread.h>
#include <scion/sched.h>
#include <scion/string.h>
#include <scion/errno.h>
#include <scion/printk.h>
#include <scion/shell.h>
#include <scion/glob.h>
#include <arch/safe_read.h>
#include <arch/insn.h>
#include <scion/probe_code.h>
#include <scion/mm.h>
#include "probe_test.h"
#include "outline_test.h"

long cfg_fix_loop(long n);
long cfg_fix_call(long n);
int cfg_fix_returns(int x);
int cfg_fix_tail(int x);
int cfg_fix_switch(unsigned x);
void cfg_fix_indirect(void (*fn)(void));

#define MAX_BLOCKS 256

typedef long (*long_fn)(long);
typedef int (*int_fn)(int);
typedef long (*long2_fn)(long, long);

static const struct cfg_function *analysed(const void *fn)
{
	return cfg_function_at((uintptr_t)fn);
}

/*
 * The layout of c: hot blocks (in address order) all before the cold
 * ones (in address order), and each block's copy mapped back to it.
 */
static void check_layout(struct ktest_ctx *t, const struct outline_copy *c, const bool *cold)
{
	const struct cfg_function *f = analysed((const void *)(uintptr_t)c->function);
	uint32_t last_hot = 0, first_cold = UINT32_MAX, prev[2] = { 0, 0 };
	bool seen[2] = { false, false };

	KT_ASSERT(t, f && f->nblocks == c->nblocks, "%s: block counts differ", c->name);
	KT_EXPECT(t, c->block_at[0] == 0, "%s: the entry block is not first", c->name);
	for (uint32_t i = 0; i < f->nblocks; i++) {
		bool is_cold = i && cold && cold[i];
		uint32_t at = c->block_at[i];
		if (is_cold && at < first_cold)
			first_cold = at;
		if (!is_cold && at > last_hot)
			last_hot = at;
		KT_EXPECT(t, !seen[is_cold] || at > prev[is_cold],
			  "%s: block %u is out of address order in its group", c->name, i);
		seen[is_cold] = true;
		prev[is_cold] = at;
		uint64_t origin = 0;
		KT_EXPECT(t, probe_patch_origin(c->entry + at, &origin) &&
			     origin == f->blocks[i].start,
			  "%s: block %u's copy maps to %#llx, not %#llx", c->name, i,
			  (unsigned long long)origin, (unsigned long long)f->blocks[i].start);
	}
	KT_EXPECT(t, first_cold == UINT32_MAX || last_hot < first_cold,
		  "%s: a hot block at +%u lies after a cold one at +%u", c->name, last_hot,
		  first_cold);
}

/* Build f's copy with the blocks listed cold, checking its shape; NULL on failure. */
static struct outline_copy *build(struct ktest_ctx *t, const void *fn, const uint32_t *cold_idx,
				  unsigned ncold, bool *cold)
{
	const struct cfg_function *f = analysed(fn);
	struct outline_copy *c = NULL;
	char err[160];

	if (!f || f->nblocks > MAX_BLOCKS) {
		ktest_fail(t, __FILE__, __LINE__, "no analysis of %p", fn);
		return NULL;
	}
	memset(cold, 0, f->nblocks);
	for (unsigned i = 0; i < ncold; i++)
		cold[cold_idx[i]] = true;
	int rc = outline_build((uintptr_t)fn, cold, &c, err, sizeof(err));
	if (rc) {
		ktest_fail(t, __FILE__, __LINE__, "outline_build: %d: %s", rc, err);
		return NULL;
	}
	KT_EXPECT(t, c->cold == ncold && c->hot == f->nblocks - ncold,
		  "%s: %u hot, %u cold, want %u cold of %u", c->name, c->hot, c->cold, ncold,
		  f->nblocks);
	check_layout(t, c, cold);
	return c;
}

KTEST_NEEDS(probe_outline_fixture_copies, 1, FEATURE_PROBES)
{
	bool cold[MAX_BLOCKS];
	unsigned wrong = 0;

	/* cfg_fix_returns: "return 1" (block 3) out of line; its je now leads past the rest. */
	static const uint32_t returns_cold[] = { 3 };
	struct outline_copy *c = build(t, cfg_fix_returns, returns_cold, 1, cold);
	KT_ASSERT(t, c, "no copy of cfg_fix_returns");
	int_fn returns = (int_fn)(uintptr_t)c->entry;
	for (int x = -50; x < 50; x++)
		wrong += returns(x) != cfg_fix_returns(x);
	outline_free(c);

	/*
	 * cfg_fix_loop: the loop body out of line. The entry's je to the
	 * return, now laid out next, turns into a jne to the loop; the loop's
	 * fall-through into the return needs a jump.
	 */
	static const uint32_t loop_cold[] = { 1 };
	c = build(t, cfg_fix_loop, loop_cold, 1, cold);
	KT_ASSERT(t, c, "no copy of cfg_fix_loop");
	KT_EXPECT(t, c->jumps_added == 1 && c->branches_inverted == 1,
		  "cfg_fix_loop: %u jumps added, %u branches inverted; want 1 and 1",
		  c->jumps_added, c->branches_inverted);
	long_fn loop = (long_fn)(uintptr_t)c->entry;
	for (long n = 0; n < 200; n++)
		wrong += loop(n) != cfg_fix_loop(n);
	outline_free(c);

	/* cfg_fix_tail: the tail call keeps its target outside the function. */
	static const uint32_t tail_cold[] = { 1 };
	c = build(t, cfg_fix_tail, tail_cold, 1, cold);
	KT_ASSERT(t, c, "no copy of cfg_fix_tail");
	int_fn tail = (int_fn)(uintptr_t)c->entry;
	for (int x = -20; x < 20; x++)
		wrong += tail(x) != cfg_fix_tail(x);
	outline_free(c);

	/* cfg_fix_call: a call whose callee returns into the copy; a plain copy (no cold). */
	c = build(t, cfg_fix_call, NULL, 0, cold);
	KT_ASSERT(t, c, "no copy of cfg_fix_call");
	long_fn call = (long_fn)(uintptr_t)c->entry;
	for (long n = 0; n < 100; n++)
		wrong += call(n) != cfg_fix_call(n);
	outline_free(c);

	/* A recursive function, copied and installed: recursion goes through the redirect. */
	c = build(t, outline_fix_recursive, NULL, 0, cold);
	KT_ASSERT(t, c, "no copy of outline_fix_recursive");
	long_fn rec = (long_fn)(uintptr_t)c->entry;
	long want[16];
	for (long n = 0; n < 16; n++) {
		want[n] = outline_fix_recursive(n);
		wrong += rec(n) != want[n];
	}
	char err[160];
	int id = outline_install(c, err, sizeof(err));
	KT_ASSERT(t, id > 0, "install: %s", err);
	for (long n = 0; n < 16; n++)
		wrong += outline_fix_recursive(n) != want[n];
	struct codeadapt_info a = { 0 };
	KT_EXPECT(t, codeadapt_find((uintptr_t)outline_fix_recursive, &a) && a.taken > 1000,
		  "the recursive calls did not go through the redirect (%llu)",
		  (unsigned long long)a.taken);
	codeadapt_remove((uint32_t)id);
	KT_EXPECT(t, wrong == 0, "%u results of the copies differ from the originals'", wrong);
	KT_EXPECT(t, text_identical(), "building copies changed the text");
}

/* Refused with one line and -EINVAL; the line must say `expect`. */
static void expect_refused(struct ktest_ctx *t, uint64_t fn, const char *expect)
{
	struct outline_copy *c = NULL;
	char err[160] = "";
	int rc = outline_build(fn, NULL, &c, err, sizeof(err));

	KT_EXPECT(t, rc == -EINVAL && !c, "%#llx: built (%d), want a refusal",
		  (unsigned long long)fn, rc);
	KT_EXPECT(t, strstr(err, expect) && !strchr(err, '\n'), "refusal '%s' does not say '%s'",
		  err, expect);
	if (rc == 0)
		outline_free(c);
}

KTEST_NEEDS(probe_outline_refusals, 1, FEATURE_PROBES)
{
	expect_refused(t, (uintptr_t)cfg_fix_switch, "indirect jump");
	expect_refused(t, (uintptr_t)cfg_fix_indirect, "indirect jump");
	expect_refused(t, (uintptr_t)cfg_fix_loop + 2, "not the entry");
	/* The probe machinery's code, and arch_safe_read's fault fixup with it. */
	expect_refused(t, (uintptr_t)probe_breakpoint, "probe");
	expect_refused(t, (uintptr_t)arch_safe_read, "probe");
	KT_EXPECT(t, text_identical(), "a refusal changed the text");
}

/* Calls of outline_fix_checked with arguments that never fail, until stop. */
struct normal_caller {
	bool stop, done;
	uint64_t calls;
};

static void call_normally(void *arg)
{
	struct normal_caller *w = arg;
	while (!READ_ONCE(w->stop)) {
		outline_fix_checked((long)(w->calls % 50), (long)(w->calls % 40));
		w->calls++;
		if (!(w->calls % 64))
			thread_yield();
	}
}

/* The block of f holding the call to target, or UINT32_MAX. */
static uint32_t block_calling(const struct cfg_function *f, const void *target)
{
	for (uint32_t i = 0; i < f->ncalls; i++)
		if (f->calls[i].target == (uintptr_t)target)
			return (uint32_t)(cfg_block_at(f, f->calls[i].site) - f->blocks);
	return UINT32_MAX;
}

/*
 * The error path of outline_fix_checked: the block calling
 * outline_fix_fail (the compiler shares one call between both errors)
 * and every block that can only lead there. Return value: how many.
 */
static unsigned error_blocks(const struct cfg_function *f, bool *err)
{
	uint32_t call = block_calling(f, outline_fix_fail);
	unsigned n = 0;
	bool grew = true;

	memset(err, 0, f->nblocks);
	if (call == UINT32_MAX || !call)
		return 0;
	err[call] = true;
	while (grew) {
		grew = false;
		for (uint32_t i = 1; i < f->nblocks; i++) {
			const struct cfg_block *b = &f->blocks[i];
			bool only = b->nsucc > 0 && !err[i];
			for (uint32_t k = 0; only && k < b->nsucc; k++)
				only = err[f->succ[b->first_succ + k]];
			if (only)
				err[i] = grew = true;
		}
	}
	for (uint32_t i = 0; i < f->nblocks; i++)
		n += err[i];
	return n;
}

static unsigned differential_checked(long2_fn fn)
{
	unsigned wrong = 0;
	for (long x = -3; x < 60; x++)
		for (long y = -2; y < 1003; y += (y < 50 ? 1 : 97))
			wrong += fn(x, y) != outline_fix_checked(x, y);
	/* The sum-too-large path: large x over many rounds. */
	for (long x = 1L << 26; x < (1L << 26) + 4; x++)
		wrong += fn(x, 900) != outline_fix_checked(x, 900);
	return wrong;
}

KTEST_NEEDS(probe_outline_counted_error_paths, 1, FEATURE_PROBES)
{
	const struct cfg_function *f = analysed(outline_fix_checked);
	struct normal_caller w = { 0 };
	uint64_t counts[MAX_BLOCKS];
	bool cold[MAX_BLOCKS];
	struct outline_copy *c = NULL;
	char err[160];

	KT_ASSERT(t, f && f->status == CFG_OK && f->nblocks <= MAX_BLOCKS, "no analysis");
	struct thread *th = thread_create("outline-caller", call_normally, &w, -1);
	KT_ASSERT(t, th, "no thread");
	int rc = outline_count((uintptr_t)outline_fix_checked, 100, counts, f->nblocks, err,
			       sizeof(err));
	WRITE_ONCE(w.stop, true);
	thread_join(th);
	KT_ASSERT(t, rc == 0, "counting: %d: %s", rc, err);
	KT_EXPECT(t, counts[0] > 0 && counts[0] != UINT64_MAX, "the entry ran %llu times",
		  (unsigned long long)counts[0]);
	unsigned ncold = 0;
	outline_cold_from_counts(counts, f->nblocks, 0, cold);
	cold[0] = false;	/* the entry is laid out first whatever its count */
	for (uint32_t i = 0; i < f->nblocks; i++)
		ncold += cold[i];
	/* The error path's blocks are among those no normal call ran. */
	bool err_path[MAX_BLOCKS];
	KT_EXPECT(t, error_blocks(f, err_path) >= 2, "no error path found in the analysis");
	for (uint32_t i = 0; i < f->nblocks; i++)
		KT_EXPECT(t, !err_path[i] || cold[i], "error block %u ran %llu times", i,
			  (unsigned long long)counts[i]);
	KT_ASSERT(t, outline_build((uintptr_t)outline_fix_checked, cold, &c, err, sizeof(err)) == 0,
		  "outline_build: %s", err);
	KT_EXPECT(t, c->cold == ncold && ncold > 0, "%u cold blocks in the copy, %u counted",
		  c->cold, ncold);
	check_layout(t, c, cold);
	unsigned wrong = differential_checked((long2_fn)(uintptr_t)c->entry);
	KT_EXPECT(t, wrong == 0, "%u results of the copy differ", wrong);
	/* A callee returns into the copy, and a backtrace there names the original. */
	((long2_fn)(uintptr_t)c->entry)(-1, 0);
	uint64_t ret = outline_fix_fail_return, origin = 0;
	const struct ksym *s = symtab_lookup_addr(&kernel_symtab, (uintptr_t)outline_fix_checked,
						  NULL);
	KT_EXPECT(t, ret > c->start && ret <= c->end, "the callee returned to %#llx, not the copy",
		  (unsigned long long)ret);
	KT_EXPECT(t, probe_patch_origin(ret - 1, &origin) && s && origin >= s->addr &&
		     origin < s->addr + s->size && analysed((const void *)(uintptr_t)origin),
		  "the return address maps to %#llx", (unsigned long long)origin);
	const struct cfg_function *cf = analysed(outline_fix_checked);
	bool is_call = false;
	for (uint32_t i = 0; cf && i < cf->ncalls; i++)
		is_call |= cf->calls[i].site == origin;
	KT_EXPECT(t, is_call, "%#llx is not the original's call", (unsigned long long)origin);
	outline_free(c);
	KT_EXPECT(t, text_identical(), "the text differs after counting");
}

/* Kernel functions of the string library: the copy, with no block cold, and with all cold. */
static const char *const words[] = {
	"0", "1", "42", "0x10", "0xffffffffffffffff", "18446744073709551615",
	"18446744073709551616", "12k", "3M", "7G", "", "x", "0x", "12q", "-1",
	"99999999999999999999",
	"abc", "a*c", "*", "?b?", "[a-c]x", "dnlc_*", "probe_outline_*",
};

static unsigned differential_parse(int (*fn)(const char *, uint64_t *, bool))
{
	unsigned wrong = 0;
	for (unsigned i = 0; i < ARRAY_SIZE(words); i++)
		for (int suffix = 0; suffix < 2; suffix++) {
			uint64_t a = 1, b = 1;
			int ra = fn(words[i], &a, suffix), rb = parse_u64(words[i], &b, suffix);
			wrong += ra != rb || (!ra && a != b);
		}
	return wrong;
}

static unsigned differential_glob(bool (*fn)(const char *, const char *))
{
	unsigned wrong = 0;
	for (unsigned i = 0; i < ARRAY_SIZE(words); i++)
		for (unsigned j = 0; j < ARRAY_SIZE(words); j++)
			wrong += fn(words[i], words[j]) != glob_match(words[i], words[j]);
	return wrong;
}

KTEST_NEEDS(probe_outline_kernel_functions, 1, FEATURE_PROBES)
{
	bool cold[MAX_BLOCKS];
	uint32_t all[MAX_BLOCKS];
	unsigned wrong = 0;

	for (unsigned k = 0; k < 2; k++) {
		const struct cfg_function *f = analysed(k ? (const void *)glob_match :
						       (const void *)parse_u64);
		KT_ASSERT(t, f && f->nblocks <= MAX_BLOCKS, "no analysis");
		/* Every other block cold: the most fall-throughs moved. */
		uint32_t n = 0;
		for (uint32_t i = 1; i < f->nblocks; i += 2)
			all[n++] = i;
		const void *fn = (const void *)(uintptr_t)f->sym->addr;
		struct outline_copy *c = build(t, fn, all, n, cold);
		KT_ASSERT(t, c, "no copy");
		if (k)
			wrong += differential_glob((bool (*)(const char *, const char *))(uintptr_t)
						   c->entry);
		else
			wrong += differential_parse((int (*)(const char *, uint64_t *, bool))
						    (uintptr_t)c->entry);
		outline_free(c);
	}
	KT_EXPECT(t, wrong == 0, "%u results of the copies differ", wrong);
}

/* The copy of outline_fix_checked with its error path cold (found by the analysis's calls). */
static struct outline_copy *checked_copy(struct ktest_ctx *t, bool *cold)
{
	const struct cfg_function *f = analysed(outline_fix_checked);
	bool err_path[MAX_BLOCKS];
	uint32_t idx[MAX_BLOCKS];
	unsigned n = 0;

	if (!f || f->nblocks > MAX_BLOCKS || !error_blocks(f, err_path))
		return NULL;
	for (uint32_t i = 0; i < f->nblocks; i++)
		if (err_path[i])
			idx[n++] = i;
	return build(t, outline_fix_checked, idx, n, cold);
}

struct smp_caller {
	bool stop;
	unsigned wrong;
	uint64_t calls;
};

/* Calls of the original (redirected or not) checked against a plain C model. */
static void call_checked(void *arg)
{
	struct smp_caller *w = arg;
	while (!READ_ONCE(w->stop)) {
		long x = (long)(w->calls % 61) - 3, y = (long)(w->calls % 47);
		long want = -1000 - x * 7 - y;
		if (x >= 0) {
			want = 0;
			for (long i = 0; i < y; i++)
				want += (x ^ i) + ((i & 3) ? 1 : 2);
		}
		w->wrong += outline_fix_checked(x, y) != want;
		w->calls++;
	}
}

/*
 * Calls of fn on both CPUs (caller, checking each result) while a copy
 * from make_copy is installed and removed `rounds` times: every install
 * succeeds, both CPUs call, calls reach the copy (the redirect works),
 * no result is wrong, nothing drains, the text is as booted.
 */
static void in_and_out_on_two_cpus(struct ktest_ctx *t, const void *fn, thread_fn caller,
				   struct outline_copy *(*make_copy)(struct ktest_ctx *t),
				   unsigned rounds)
{
	static struct smp_caller w[2];
	struct thread *th[2];
	unsigned installs = 0;
	uint64_t taken = 0;
	char err[160];

	for (int i = 0; i < 2; i++) {
		w[i] = (struct smp_caller){ 0 };
		th[i] = thread_create("outline-smp", caller, &w[i], i);
		KT_ASSERT(t, th[i], "no thread");
	}
	for (unsigned round = 0; round < rounds; round++) {
		struct outline_copy *c = make_copy(t);
		if (!c)
			break;
		int id = outline_install(c, err, sizeof(err));
		KT_EXPECT(t, id > 0, "install: %s", err);
		if (id <= 0)
			continue;
		installs++;
		KT_EXPECT(t, !text_identical(), "no redirect in the text");
		thread_sleep_ticks(2);
		struct codeadapt_info a = { 0 };
		if (codeadapt_find((uintptr_t)fn, &a))
			taken += a.taken;
		KT_EXPECT(t, a.kind == CODEADAPT_OUTLINE, "listed as kind %d", a.kind);
		KT_EXPECT(t, codeadapt_remove((uint32_t)id) == 0, "removal failed");
		thread_sleep_ticks(1);
	}
	for (int i = 0; i < 2; i++) {
		WRITE_ONCE(w[i].stop, true);
		thread_join(th[i]);
	}
	KT_EXPECT(t, installs == rounds, "only %u of %u installs", installs, rounds);
	KT_EXPECT(t, w[0].calls && w[1].calls, "a CPU made no calls");
	KT_EXPECT(t, taken > 0, "no call went to the copy");
	KT_EXPECT(t, w[0].wrong + w[1].wrong == 0, "%u results wrong while the copy came and went",
		  w[0].wrong + w[1].wrong);
	KT_EXPECT(t, codeadapt_collect() == 0, "a copy is still draining");
	KT_EXPECT(t, text_identical(), "the text differs at the end");
}

static struct outline_copy *checked_copy_any(struct ktest_ctx *t)
{
	bool cold[MAX_BLOCKS];
	return checked_copy(t, cold);
}

KTEST_NEEDS(probe_outline_installed_on_two_cpus, 2, FEATURE_PROBES)
{
	in_and_out_on_two_cpus(t, outline_fix_checked, call_checked, checked_copy_any, 20);
}

KTEST_NEEDS(probe_outline_installed_differential, 1, FEATURE_PROBES)
{
	bool cold[MAX_BLOCKS];
	char err[160];
	struct outline_copy *c = checked_copy(t, cold);

	KT_ASSERT(t, c, "no copy");
	uint64_t copy_start = c->start;
	int id = outline_install(c, err, sizeof(err));
	KT_ASSERT(t, id > 0, "install: %s", err);
	struct outline_copy *again = checked_copy(t, cold);
	KT_EXPECT(t, again && outline_install(again, err, sizeof(err)) == -EEXIST,
		  "a second outline of one function");
	/* The original, now redirected, against its own copy's results (the error paths run). */
	unsigned wrong = differential_checked(outline_fix_checked);
	struct codeadapt_info a = { 0 };
	KT_EXPECT(t, codeadapt_find((uintptr_t)outline_fix_checked, &a) && a.taken > 1000 &&
		     a.version == copy_start, "the redirect sent %llu calls to %#llx",
		  (unsigned long long)a.taken, (unsigned long long)a.version);
	/* The model, by the plain loop, of a few calls. */
	for (long x = 0; x < 8; x++)
		wrong += outline_fix_checked(x, 3) != (x ^ 0) + 2 + (x ^ 1) + 1 + (x ^ 2) + 1;
	KT_EXPECT(t, wrong == 0, "%u results wrong while installed", wrong);
	KT_EXPECT(t, codeadapt_remove((uint32_t)id) == 0, "removal failed");
	KT_EXPECT(t, text_identical(), "the text differs after removal");
	KT_EXPECT(t, codeadapt_collect() == 0, "the copy is still draining");
}

/* Shell: the command counts while another thread calls, installs, and says so in one line. */
KTEST_NEEDS(probe_outline_shell_command, 1, FEATURE_PROBES)
{
	struct normal_caller w = { 0 };
	char line[96];

	struct thread *th = thread_create("outline-caller", call_normally, &w, -1);
	KT_ASSERT(t, th, "no thread");
	snprintf(line, sizeof(line), "codeadapt outline outline_fix_checked ms=50");
	int rc = shell_execute(line);
	WRITE_ONCE(w.stop, true);
	thread_join(th);
	KT_EXPECT(t, rc == 0, "codeadapt outline: %d", rc);
	struct codeadapt_info a = { 0 };
	KT_EXPECT(t, codeadapt_find((uintptr_t)outline_fix_checked, &a) &&
		     a.kind == CODEADAPT_OUTLINE, "not installed");
	KT_EXPECT(t, outline_fix_checked(3, 5) == (3 ^ 0) + 2 + (3 ^ 1) + 1 + (3 ^ 2) + 1 +
		     (3 ^ 3) + 1 + (3 ^ 4) + 2, "a wrong result while installed");
	snprintf(line, sizeof(line), "codeadapt outline outline_fix_checked ms=10");
	KT_EXPECT(t, shell_execute(line) == -EEXIST, "outlined twice");
	snprintf(line, sizeof(line), "codeadapt outline cfg_fix_switch ms=10");
	KT_EXPECT(t, shell_execute(line) == -EINVAL, "a jump table outlined from the shell");
	snprintf(line, sizeof(line), "codeadapt outline outline_fix_checked ms=0");
	KT_EXPECT(t, shell_execute(line) == -EINVAL, "ms=0 accepted");
	snprintf(line, sizeof(line), "codeadapt remove all");
	KT_EXPECT(t, shell_execute(line) == 0, "remove all failed");
	KT_EXPECT(t, text_identical(), "the text differs after removal");
}

/* Every function of the kernel, copied with every other block cold (not run: checked). */
struct sweep {
	struct ktest_ctx *t;
	unsigned copied, refused, unsupported, bad;
	unsigned jump_table, noprobe;
	uint8_t *boundary;		/* per byte of a copy: an instruction starts there */
};

/*
 * The copy's code decodes from start to end, and every direct branch in
 * it lands on one of its instruction boundaries or outside both the copy
 * and the original's blocks (a tail call, or code after a call that does
 * not return). Return value: false, with a failure, when it does not.
 */
static bool copy_is_sound(struct sweep *w, const struct cfg_function *f,
			  const struct outline_copy *c)
{
	struct insn in;
	size_t len = c->end - c->start;
	const uint8_t *code = (const uint8_t *)(uintptr_t)c->start;

	memset(w->boundary, 0, len);
	for (size_t at = 0; at < len; at += in.length) {
		if (insn_decode(&in, code + at, len - at, c->start + at) != INSN_OK) {
			ktest_fail(w->t, __FILE__, __LINE__, "%s: the copy does not decode at +%zu",
				   c->name, at);
			return false;
		}
		w->boundary[at] = 1;
	}
	for (size_t at = 0; at < len; at += in.length) {
		insn_decode(&in, code + at, len - at, c->start + at);
		if (!insn_has_branch_target(&in))
			continue;
		bool inside = in.target >= c->start && in.target < c->end;
		const struct cfg_block *b = cfg_block_at(f, in.target);
		if ((inside && !w->boundary[in.target - c->start]) ||
		    (b && b->start == in.target && in.cf != INSN_CF_CALL)) {
			ktest_fail(w->t, __FILE__, __LINE__, "%s: the branch at +%zu goes to %#llx",
				   c->name, at, (unsigned long long)in.target);
			return false;
		}
	}
	return true;
}

static bool sweep_one(const struct ksym *s, void *arg)
{
	struct sweep *w = arg;
	const struct cfg_function *f = cfg_function_at(s->addr);
	bool cold[MAX_BLOCKS];
	struct outline_copy *c = NULL;
	char err[160];

	if (!f || f->sym->addr != s->addr || f->sym != s || f->nblocks > MAX_BLOCKS)
		return true;
	for (uint32_t i = 0; i < f->nblocks; i++)
		cold[i] = i & 1;
	int rc = outline_build(s->addr, cold, &c, err, sizeof(err));
	if (rc == -EINVAL || rc == -ENOSPC) {
		w->refused++;
		/* err is "NAME: why": the reason alone, so a name with "probe" counts once. */
		const char *why = strstr(err, ": ");
		why = why ? why : err;
		w->jump_table += strstr(why, "indirect jump") != NULL;
		w->noprobe += strstr(why, "probe") != NULL;
		if (!strstr(why, "indirect jump") && !strstr(why, "probe"))
			printk("outline: refused: %s\n", err);
		return true;
	}
	if (rc) {
		w->unsupported++;
		ktest_fail(w->t, __FILE__, __LINE__, "%s: %d: %s", ksym_name(&kernel_symtab, s), rc,
			   err);
		return w->unsupported < 5;
	}
	w->copied++;
	if (!copy_is_sound(w, f, c))
		w->bad++;
	outline_free(c);
	return w->bad < 5;
}

KTEST_NEEDS(probe_outline_every_function, 1, FEATURE_PROBES)
{
	struct sweep w = { .t = t, .boundary = kmalloc(PROBE_CODE_MAX) };

	KT_ASSERT(t, w.boundary, "no memory");
	KT_ASSERT(t, cfg_analyse_kernel() == 0, "no analysis");
	symtab_foreach_glob(&kernel_symtab, "*", sweep_one, &w);
	kfree(w.boundary);
	printk("outline: %u functions copied, %u refused (%u indirect jumps, %u probe code)\n",
	       w.copied, w.refused, w.jump_table, w.noprobe);
	KT_EXPECT(t, w.copied > 1000, "only %u functions copied", w.copied);
	KT_EXPECT(t, w.bad == 0 && w.unsupported == 0, "%u unsound copies, %u failures", w.bad,
		  w.unsupported);
	KT_EXPECT(t, text_identical(), "copying changed the text");
}

/* glob_match's results over words x words, as booted; calls on each CPU compare with them. */
static bool glob_want[ARRAY_SIZE(words)][ARRAY_SIZE(words)];

static void call_glob(void *arg)
{
	struct smp_caller *w = arg;
	while (!READ_ONCE(w->stop)) {
		unsigned i = (unsigned)(w->calls % ARRAY_SIZE(words));
		unsigned j = (unsigned)(w->calls / ARRAY_SIZE(words) % ARRAY_SIZE(words));
		w->wrong += glob_match(words[i], words[j]) != glob_want[i][j];
		w->calls++;
	}
}

/* glob_match with every other block cold. */
static struct outline_copy *glob_copy(struct ktest_ctx *t)
{
	const struct cfg_function *f = analysed(glob_match);
	bool cold[MAX_BLOCKS];
	uint32_t idx[MAX_BLOCKS], n = 0;

	for (uint32_t i = 1; i < f->nblocks; i += 2)
		idx[n++] = i;
	return build(t, glob_match, idx, n, cold);
}

/* A kernel function the system itself calls, outlined and removed while both CPUs call it. */
KTEST_NEEDS(probe_outline_kernel_function_installed, 2, FEATURE_PROBES)
{
	const struct cfg_function *f = analysed(glob_match);

	KT_ASSERT(t, f && f->nblocks <= MAX_BLOCKS, "no analysis of glob_match");
	for (unsigned i = 0; i < ARRAY_SIZE(words); i++)
		for (unsigned j = 0; j < ARRAY_SIZE(words); j++)
			glob_want[i][j] = glob_match(words[i], words[j]);
	in_and_out_on_two_cpus(t, glob_match, call_glob, glob_copy, 10);
}
