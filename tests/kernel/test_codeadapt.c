// SPDX-License-Identifier: BSD-2-Clause
/*
 * In-kernel tests of code adaptations (scion/codeadapt.h): a clone of a
 * function compiled from its own body with one argument constant,
 * installed behind "arg1 == 16" at the function's entry, runs exactly
 * for the calls that pass 16 and gives the same results as the
 * original; a thread-scoped version runs only in its thread; the
 * redirect shares its site with probes there, jump or breakpoint; calls
 * on two CPUs stay right while the splice goes in and out; a version a
 * thread is still inside drains before it is released; removal restores
 * the text byte for byte; bad requests are refused.
 */
#include <scion/ktest.h>
#include <scion/codeadapt.h>
#include <scion/thread.h>
#include <scion/sched.h>
#include <scion/printk.h>
#include <scion/shell.h>
#include <scion/cpu.h>
#include <scion/errno.h>
#include <arch/cpu.h>
#include <arch/trap.h>
#include "probe_test.h"
#include "codeadapt_fixture.h"

#define SPECIAL_N CODEADAPT_SPECIAL_N
#define ROUNDS 40

static uint8_t bytes[64];

/* The adapted function's body: both the function and its clone are built from it. */
static inline __attribute__((always_inline)) uint64_t sum_body(const uint8_t *p, unsigned long n,
								uint64_t seed)
{
	uint64_t h = seed;
	/* Unrolled by 16: the clone for n == 16 has no loop left at all. */
#pragma GCC unroll 16
	for (unsigned long i = 0; i < n; i++)
		h = (h ^ p[i]) * 0x100000001b3ull;
	return h;
}

__noinline uint64_t codeadapt_fix_sum(const uint8_t *p, unsigned long n, uint64_t seed)
{
	return sum_body(p, n, seed);
}

/* The clone for n == SPECIAL_N: the compiler unrolls the constant loop. */
__noinline uint64_t codeadapt_fix_sum_n16(const uint8_t *p, unsigned long n, uint64_t seed)
{
	(void)n;
	return sum_body(p, SPECIAL_N, seed);
}

__noinline long codeadapt_fix_answer(long x)
{
	__asm__ volatile("" ::: "memory");
	return x + 1;
}

/* An int argument: its register's upper half is not the argument's. */
__noinline int codeadapt_fix_scale(int x, int k)
{
	return x * k + 1;
}

__noinline int codeadapt_fix_scale_minus3(int x, int k)
{
	(void)k;
	return x * -3 + 1;
}

/* A function that keeps its own state: a clone of it would keep another copy. */
static unsigned long counted_calls;

__noinline unsigned long codeadapt_fix_counted(unsigned long x)
{
	counted_calls++;
	return x + counted_calls;
}

/* A thread's own version: visibly different. */
__noinline long codeadapt_fix_answer_mine(long x)
{
	__asm__ volatile("" ::: "memory");
	return x + 1000;
}

static uint64_t reference(unsigned long n, uint64_t seed)
{
	uint64_t h = seed;
	for (unsigned long i = 0; i < n; i++)
		h = (h ^ bytes[i]) * 0x100000001b3ull;
	return h;
}

static void fill_bytes(void)
{
	for (unsigned i = 0; i < sizeof(bytes); i++)
		bytes[i] = (uint8_t)(i * 37 + 11);
}

static int install_spec(enum codeadapt_kind kind, void *fn, void *version, size_t size, int arg,
			uint64_t value, uint64_t tid)
{
	char err[160];
	struct codeadapt_spec s = { .kind = kind, .function = (uintptr_t)fn,
				    .version = (uintptr_t)version,
				    .version_start = (uintptr_t)version,
				    .version_end = (uintptr_t)version + size, .arg = arg,
				    .value = value, .tid = tid, .source = "test" };
	int id = codeadapt_install(&s, err, sizeof(err));
	if (id < 0)
		printk("%s\n", err);
	return id;
}

static int install_sum_clone(void)
{
	return install_spec(CODEADAPT_SPECIALIZE, codeadapt_fix_sum, codeadapt_fix_sum_n16, 1, 1,
			    SPECIAL_N, 0);
}

static uint64_t taken_of(int id)
{
	struct codeadapt_info a = { 0 };
	codeadapt_find((uintptr_t)codeadapt_fix_sum, &a);
	return a.id == (uint32_t)id ? a.taken : ~0ull;
}

/* Calls with every n from 0 to 31: *wrong counts results unlike the reference. */
static unsigned call_sums(unsigned rounds, unsigned *wrong)
{
	unsigned special = 0;
	for (unsigned r = 0; r < rounds; r++)
		for (unsigned long n = 0; n < 32; n++) {
			if (codeadapt_fix_sum(bytes, n, r) != reference(n, r))
				++*wrong;
			special += n == SPECIAL_N;
		}
	return special;
}

KTEST_NEEDS(probe_codeadapt_specialize_guard, 1, FEATURE_PROBES)
{
	unsigned wrong = 0;

	fill_bytes();
	int id = install_sum_clone();
	KT_ASSERT(t, id > 0, "the clone was not installed: %d", id);
	KT_EXPECT(t, !text_identical(), "the entry splice is not in the text");
	unsigned special = call_sums(ROUNDS, &wrong);
	KT_EXPECT(t, wrong == 0, "%u results differ from the original's", wrong);
	KT_EXPECT(t, taken_of(id) == special, "the clone ran %llu times for %u calls with n == %u",
		  (unsigned long long)taken_of(id), special, SPECIAL_N);
	KT_ASSERT(t, codeadapt_remove((uint32_t)id) == 0, "removal failed");
	KT_EXPECT(t, codeadapt_remove((uint32_t)id) == -ENOENT, "removed twice");
	KT_EXPECT(t, text_identical(), "the text differs after removal");
	struct codeadapt_info a;
	KT_EXPECT(t, !codeadapt_find((uintptr_t)codeadapt_fix_sum, &a), "still listed installed");
	call_sums(2, &wrong);
	KT_EXPECT(t, wrong == 0, "%u results wrong after removal", wrong);
	KT_EXPECT(t, codeadapt_collect() == 0, "a kernel-resident version is still draining");
}

KTEST_NEEDS(probe_codeadapt_int_argument_guard, 1, FEATURE_PROBES)
{
	char err[160];
	struct codeadapt_spec s = {
		.kind = CODEADAPT_SPECIALIZE, .function = (uintptr_t)codeadapt_fix_scale,
		.version = (uintptr_t)codeadapt_fix_scale_minus3,
		.version_start = (uintptr_t)codeadapt_fix_scale_minus3,
		.version_end = (uintptr_t)codeadapt_fix_scale_minus3 + 1, .arg = 1,
		.arg_bytes = 4, .value = (uint32_t)-3, .source = "test",
	};
	volatile int ks[] = { -3, 3, 0, -3, 7 };
	int id = codeadapt_install(&s, err, sizeof(err));

	KT_ASSERT(t, id > 0, "%s", err);
	for (unsigned i = 0; i < 5; i++)
		KT_EXPECT(t, codeadapt_fix_scale(5, ks[i]) == 5 * ks[i] + 1, "wrong for k = %d",
			  ks[i]);
	struct codeadapt_info a = { 0 };
	codeadapt_find((uintptr_t)codeadapt_fix_scale, &a);
	KT_EXPECT(t, a.taken == 2, "the clone for k == -3 ran %llu times, not 2",
		  (unsigned long long)a.taken);
	codeadapt_remove((uint32_t)id);
	KT_EXPECT(t, text_identical(), "the text differs after removal");
}

struct answer_worker {
	long got;
	bool done;
};

static void other_thread(void *arg)
{
	struct answer_worker *w = arg;
	w->got = codeadapt_fix_answer(5);
	WRITE_ONCE(w->done, true);
}

KTEST_NEEDS(probe_codeadapt_thread_scope, 1, FEATURE_PROBES)
{
	uint64_t me = this_cpu()->current->tid;
	struct answer_worker w = { 0 };

	int id = install_spec(CODEADAPT_VERSION, codeadapt_fix_answer, codeadapt_fix_answer_mine,
			      1, -1, 0, me);
	KT_ASSERT(t, id > 0, "the thread's version was not installed: %d", id);
	KT_EXPECT(t, codeadapt_fix_answer(5) == 1005, "this thread ran the original");
	struct thread *other = thread_create("codeadapt-other", other_thread, &w, -1);
	KT_ASSERT(t, other, "no thread");
	thread_join(other);
	KT_EXPECT(t, w.got == 6, "another thread ran this thread's version (%ld)", w.got);
	KT_EXPECT(t, codeadapt_remove((uint32_t)id) == 0, "removal failed");
	KT_EXPECT(t, codeadapt_fix_answer(5) == 6, "the version still runs after removal");
	KT_EXPECT(t, text_identical(), "the text differs after removal");
}

struct fired {
	uint64_t n, last_id, last_function;
};

static void on_codeadapt_event(const struct probe_hit *hit, void *arg)
{
	struct fired *f = arg;
	f->n++;
	f->last_id = trap_frame_arg(hit->regs, 0);
	f->last_function = trap_frame_arg(hit->regs, 2);
}

KTEST_NEEDS(probe_codeadapt_provider_fires, 1, FEATURE_PROBES)
{
	struct fired installs = { 0 }, removes = { 0 };
	struct probe *pi = probe_named("codeadapt:kernel::install");
	struct probe *pr = probe_named("codeadapt:kernel::remove");
	struct probe_consumer ci = { .action = PROBE_HANDLER, .handler = on_codeadapt_event,
				     .arg = &installs };
	struct probe_consumer cr = { .action = PROBE_HANDLER, .handler = on_codeadapt_event,
				     .arg = &removes };

	KT_ASSERT(t, pi && pr, "no codeadapt provider probes");
	KT_ASSERT(t, !probe_enable(pi, &ci) && !probe_enable(pr, &cr), "enabling them failed");
	int id = install_sum_clone();
	KT_EXPECT(t, id > 0 && installs.n == 1 && installs.last_id == (uint64_t)id &&
		  installs.last_function == (uintptr_t)codeadapt_fix_sum,
		  "install fired %llu times (id %llu)", (unsigned long long)installs.n,
		  (unsigned long long)installs.last_id);
	codeadapt_remove((uint32_t)id);
	KT_EXPECT(t, removes.n == 1 && removes.last_id == (uint64_t)id,
		  "remove fired %llu times", (unsigned long long)removes.n);
	probe_disable(&ci);
	probe_disable(&cr);
}

/* A probe at the entry first, then the redirect, then the probe goes first. */
static void shares_site(struct ktest_ctx *t, enum probe_mechanism mech)
{
	uint64_t hits = 0;
	unsigned wrong = 0;
	struct probe *p = probe_at(codeadapt_fix_sum);
	struct probe_consumer c = handler_consumer(&hits, mech);

	fill_bytes();
	KT_ASSERT(t, p && probe_enable(p, &c) == 0, "the entry probe was refused");
	struct probe_site_info info;
	probe_site_info((uintptr_t)codeadapt_fix_sum, &info);
	KT_EXPECT(t, info.mechanism == mech, "the site is not the mechanism asked for");
	int id = install_sum_clone();
	KT_ASSERT(t, id > 0, "the clone was not installed beside a probe: %d", id);
	unsigned special = call_sums(4, &wrong);
	KT_EXPECT(t, hits == 4 * 32, "the probe fired %llu times for %u calls",
		  (unsigned long long)hits, 4 * 32);
	KT_EXPECT(t, taken_of(id) == special, "the clone ran %llu times, not %u",
		  (unsigned long long)taken_of(id), special);
	probe_disable(&c);
	call_sums(1, &wrong);
	KT_EXPECT(t, hits == 4 * 32, "the disabled probe fired");
	KT_EXPECT(t, taken_of(id) == special + 1, "the clone stopped running with the probe");
	KT_EXPECT(t, wrong == 0, "%u results wrong", wrong);
	codeadapt_remove((uint32_t)id);
	KT_EXPECT(t, text_identical(), "the text differs after removal");
}

KTEST_NEEDS(probe_codeadapt_shares_a_jump_site, 1, FEATURE_PROBES)
{
	shares_site(t, PROBE_MECH_JUMP);
}

KTEST_NEEDS(probe_codeadapt_behind_a_breakpoint, 1, FEATURE_PROBES)
{
	shares_site(t, PROBE_MECH_BREAKPOINT);
}

struct smp_worker {
	unsigned wrong, calls;
	bool stop, done;
};

static void smp_caller(void *arg)
{
	struct smp_worker *w = arg;
	while (!READ_ONCE(w->stop)) {
		call_sums(1, &w->wrong);
		w->calls += 32;
	}
	WRITE_ONCE(w->done, true);
}

KTEST_NEEDS(probe_codeadapt_in_and_out_on_two_cpus, 2, FEATURE_PROBES)
{
	static struct smp_worker w[2];
	struct thread *th[2];
	unsigned installs = 0;

	fill_bytes();
	for (int i = 0; i < 2; i++) {
		w[i] = (struct smp_worker){ 0 };
		th[i] = thread_create("codeadapt-smp", smp_caller, &w[i], i);
		KT_ASSERT(t, th[i], "no thread");
	}
	for (int round = 0; round < 30; round++) {
		int id = install_sum_clone();
		if (id > 0) {
			installs++;
			thread_sleep_ticks(1);
			KT_EXPECT(t, codeadapt_remove((uint32_t)id) == 0, "removal failed");
		}
		thread_sleep_ticks(1);
	}
	for (int i = 0; i < 2; i++) {
		WRITE_ONCE(w[i].stop, true);
		thread_join(th[i]);
	}
	KT_EXPECT(t, installs == 30, "only %u of 30 installs succeeded", installs);
	KT_EXPECT(t, w[0].calls && w[1].calls, "a CPU made no calls");
	KT_EXPECT(t, w[0].wrong + w[1].wrong == 0, "%u results wrong while the splice moved",
		  w[0].wrong + w[1].wrong);
	KT_EXPECT(t, text_identical(), "the text differs at the end");
}

/* A version a thread sleeps in: the adaptation drains until it leaves. */
static bool inside_version, let_go;
static unsigned releases;

__noinline long codeadapt_fix_answer_slow(long x)
{
	WRITE_ONCE(inside_version, true);
	while (!READ_ONCE(let_go))
		thread_sleep_ticks(1);
	return x + 1;
}

static uint64_t function_size(const void *fn)
{
	const struct ksym *s = symtab_lookup_addr(&kernel_symtab, (uintptr_t)fn, NULL);
	return s ? s->size : 1;
}

static void count_release(void *owner)
{
	(void)owner;
	releases++;
}

static void slow_caller(void *arg)
{
	struct answer_worker *w = arg;
	w->got = codeadapt_fix_answer(7);
	WRITE_ONCE(w->done, true);
}

KTEST_NEEDS(probe_codeadapt_drains_before_release, 1, FEATURE_PROBES)
{
	struct answer_worker w = { 0 };
	char err[160];
	struct codeadapt_spec s = {
		.kind = CODEADAPT_VERSION, .function = (uintptr_t)codeadapt_fix_answer,
		.version = (uintptr_t)codeadapt_fix_answer_slow,
		.version_start = (uintptr_t)codeadapt_fix_answer_slow,
		.version_end = (uintptr_t)codeadapt_fix_answer_slow +
			       function_size(codeadapt_fix_answer_slow), .arg = -1,
		.source = "test", .release = count_release,
	};

	releases = 0;
	inside_version = let_go = false;
	int id = codeadapt_install(&s, err, sizeof(err));
	KT_ASSERT(t, id > 0, "%s", err);
	struct thread *th = thread_create("codeadapt-slow", slow_caller, &w, -1);
	KT_ASSERT(t, th, "no thread");
	for (int i = 0; i < 500 && !READ_ONCE(inside_version); i++)
		thread_sleep_ticks(1);
	KT_ASSERT(t, inside_version, "the thread never entered the version");
	KT_EXPECT(t, codeadapt_remove((uint32_t)id) == 0, "removal failed");
	KT_EXPECT(t, text_identical(), "the text differs after removal");
	KT_EXPECT(t, codeadapt_collect() == 1 && releases == 0,
		  "released while a thread sleeps in the version");
	WRITE_ONCE(let_go, true);
	thread_join(th);
	KT_EXPECT(t, w.got == 8, "the call inside returned %ld", w.got);
	KT_EXPECT(t, codeadapt_collect() == 0 && releases == 1,
		  "not released once the thread left (%u releases)", releases);
}

static bool count_one(const struct codeadapt_info *a, void *arg)
{
	(void)a;
	++*(unsigned *)arg;
	return true;
}

KTEST_NEEDS(probe_codeadapt_refusals, 1, FEATURE_PROBES)
{
	char err[160];
	int id = install_sum_clone();

	KT_ASSERT(t, id > 0, "the clone was not installed: %d", id);
	KT_EXPECT(t, install_sum_clone() == -EEXIST, "a second adaptation of one function");
	codeadapt_remove((uint32_t)id);
	KT_EXPECT(t, install_spec(CODEADAPT_SPECIALIZE, (uint8_t *)(uintptr_t)codeadapt_fix_sum + 1,
				  codeadapt_fix_sum_n16, 1, 1, SPECIAL_N, 0) == -EINVAL,
		  "a splice inside a function, not at its entry");
	KT_EXPECT(t, install_spec(CODEADAPT_SPECIALIZE, codeadapt_fix_sum, codeadapt_fix_sum_n16, 1,
				  6, SPECIAL_N, 0) == -EINVAL, "a guard on the seventh argument");
	KT_EXPECT(t, install_spec(CODEADAPT_VERSION, probe_breakpoint, codeadapt_fix_answer_mine,
				  1, -1, 0, 0) < 0, "the probe machinery's own code adapted");
	struct codeadapt_spec s = { .kind = CODEADAPT_SPECIALIZE,
				    .function = (uintptr_t)codeadapt_fix_sum, .arg = 1 };
	KT_EXPECT(t, codeadapt_install(&s, err, sizeof(err)) == -EINVAL,
		  "a version outside its memory");
	KT_EXPECT(t, text_identical(), "the text differs after the refusals");
	unsigned n = 0;
	codeadapt_foreach(count_one, &n);
	KT_EXPECT(t, n == 0, "%u adaptations left", n);
}

/*
 * `codeadaptwork N`: N rounds of codeadapt_fix_sum over n = 0..31, three
 * quarters of the calls with n == SPECIAL_N; prints the calls, the
 * results that differ from the reference (0) and their sum, which does
 * not depend on which version ran: the input `scion codeadapt
 * specialize`'s test histograms and then checks.
 */
static int cmd_codeadaptwork(int argc, char **argv)
{
	uint64_t rounds, sum = 0;
	unsigned wrong = 0, calls = 0;

	if (argc != 2 || parse_u64(argv[1], &rounds, false) || !rounds || rounds > 100000) {
		printk("codeadaptwork: usage: codeadaptwork ROUNDS (1 to 100000)\n");
		return -EINVAL;
	}
	fill_bytes();
	for (uint64_t r = 0; r < rounds; r++)
		for (unsigned long i = 0; i < 128; i++) {
			unsigned long n = i < 96 ? SPECIAL_N : i - 96;
			uint64_t h = codeadapt_fix_sum(bytes, n, r);
			wrong += h != reference(n, r);
			sum += h;
			calls++;
		}
	printk("codeadaptwork: %u calls, %u wrong, sum %llx\n", calls, wrong,
	       (unsigned long long)sum);
	return wrong ? -EIO : 0;
}
SHELL_COMMAND(codeadaptwork, "ROUNDS", "call a code adaptation fixture (tests)",
	      cmd_codeadaptwork);
