/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * In-kernel tests. A test is a function registered in a linker table:
 *
 *   KTEST(sched_fairness, 1) { ... KT_ASSERT(t, cond, "fmt", ...); }
 *
 * The second argument is the number of CPUs the test needs. A test that
 * needs machine features some port lacks says so:
 *
 *   KTEST_NEEDS(probe_counts, 1, FEATURE_PROBES) { ... }
 *
 * (scion/features.h); on a port without one of them the runner prints
 * `test NAME: SKIPPED (reason)` with the port's one-line reason and does
 * not run it. The runner (kernel/test/ktest.c) runs each selected test in
 * a thread of its own and prints `test NAME: OK` or `test NAME: FAILED:
 * why`. Skipped tests count neither as passed nor as failed in the closing
 * `N passed, M failed`; the line before it counts them.
 */
#ifndef SCION_KTEST_H
#define SCION_KTEST_H

#include <scion/compiler.h>
#include <scion/features.h>
#include <scion/format.h>

struct ktest_ctx {
	const char *name;
	bool failed;
	bool skipped;		/* KT_SKIP: the machine lacks what the test needs */
	char why[160];
};

struct ktest {
	const char *name;
	void (*fn)(struct ktest_ctx *t);
	unsigned min_cpus;
	unsigned timeout_s;
	bool manual;		/* run only when the selector names it exactly */
	unsigned needs;		/* FEATURE_* the test needs (scion/features.h) */
};

LINKER_TABLE_DECLARE(struct ktest, ktests);

/*
 * Tests, benchmarks and the test.* graft points are linked only into the
 * test kernel (tests/kernel/, make test-kernel); the kernel a user boots
 * answers `test`, `tests` and `bench` with this.
 */
#define KTEST_NONE_HERE "this kernel has no in-kernel tests or benchmarks; the test kernel has " \
	"them (make test-kernel: build/test/)"

#define KTEST_TIMEOUT_S 60

#define KTEST_DEFINE(tname, cpus, is_manual, features) \
	static void ktest_##tname(struct ktest_ctx *t); \
	static const struct ktest ktest_entry_##tname LINKER_TABLE_ENTRY(ktests) = { \
		.name = #tname, .fn = ktest_##tname, .min_cpus = (cpus), \
		.timeout_s = KTEST_TIMEOUT_S, .manual = (is_manual), .needs = (features), \
	}; \
	static void ktest_##tname(struct ktest_ctx *t)

#define KTEST(tname, cpus) KTEST_DEFINE(tname, cpus, false, 0)

/* A test that needs machine features (FEATURE_*, scion/features.h). */
#define KTEST_NEEDS(tname, cpus, features) KTEST_DEFINE(tname, cpus, false, features)

/*
 * A test that does not return normally (it panics the kernel, on
 * purpose): run only when named exactly, e.g. test=crash_fault_with_lock.
 */
#define KTEST_MANUAL(tname, cpus) KTEST_DEFINE(tname, cpus, true, 0)

/* Record the first failure of the running test. */
void ktest_fail(struct ktest_ctx *t, const char *file, int line, const char *fmt, ...)
	__printf(4, 5);

/* Check cond; on failure record why and return from the test. */
#define KT_ASSERT(t, cond, ...) do { \
	if (!(cond)) { \
		ktest_fail((t), __FILE__, __LINE__, __VA_ARGS__); \
		return; \
	} \
} while (0)

/* End the test as skipped (e.g. the boot has no disk), saying why. */
void ktest_skip(struct ktest_ctx *t, const char *fmt, ...) __printf(2, 3);
#define KT_SKIP(t, ...) do { \
	ktest_skip((t), __VA_ARGS__); \
	return; \
} while (0)

/* Check cond; on failure record why and go on. */
#define KT_EXPECT(t, cond, ...) do { \
	if (!(cond)) \
		ktest_fail((t), __FILE__, __LINE__, __VA_ARGS__); \
} while (0)

/*
 * ktest_run - run the tests whose names match the selector (a pattern
 * list, see glob_list_match), print one line per test and the summary.
 * Return value: the number of failures.
 * Caller's context: thread, may sleep.
 */
int ktest_run(const char *selector);

/* Whether the boot option test= asked for a test run. */
bool ktest_boot_requested(void);

/* Run the tests test= selected and end the QEMU run with their verdict. */
__noreturn void ktest_boot_run(void);

#endif
