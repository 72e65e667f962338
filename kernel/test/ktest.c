// SPDX-License-Identifier: BSD-2-Clause
/*
 * The in-kernel test runner. Tests come from the ktests linker table;
 * each selected test runs in a thread of its own, so a test that faults
 * is killed and reported without taking the runner down, and one that
 * hangs is reported after its timeout (the run then stops, since its
 * thread cannot be reclaimed).
 *
 * Output, one line per test: `test NAME: OK`, `test NAME: FAILED: why`
 * or `test NAME: SKIPPED (why)`, then a summary line and finally
 * `N passed, M failed`.
 */
#include <scion/exit_status.h>
#include <scion/ktest.h>
#include <scion/thread.h>
#include <scion/cpu.h>
#include <scion/clock.h>
#include <scion/glob.h>
#include <scion/mm.h>
#include <scion/printk.h>
#include <scion/shell.h>
#include <scion/bootopt.h>
#include <scion/string.h>
#include <scion/errno.h>
#include <arch/power.h>


struct test_run {
	const struct ktest *test;
	struct ktest_ctx ctx;
};

static char boot_selector[128];

void ktest_fail(struct ktest_ctx *t, const char *file, int line, const char *fmt, ...)
{
	if (t->failed)
		return;
	t->failed = true;
	const char *base = file;
	for (const char *p = file; *p; p++)
		if (*p == '/')
			base = p + 1;
	int n = snprintf(t->why, sizeof(t->why), "%s:%d: ", base, line);
	if (n < 0 || (size_t)n >= sizeof(t->why))
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(t->why + n, sizeof(t->why) - (size_t)n, fmt, ap);
	va_end(ap);
}

void ktest_skip(struct ktest_ctx *t, const char *fmt, ...)
{
	va_list ap;

	if (t->failed)
		return;
	t->skipped = true;
	va_start(ap, fmt);
	vsnprintf(t->why, sizeof(t->why), fmt, ap);
	va_end(ap);
}

/* True when one of the comma-separated patterns of selector is exactly name. */
static bool names_exactly(const char *selector, const char *name)
{
	size_t n = strlen(name);

	for (const char *p = selector; *p;) {
		const char *comma = strchr(p, ',');
		size_t len = comma ? (size_t)(comma - p) : strlen(p);
		if (len == n && !strncmp(p, name, n))
			return true;
		p += len + (comma ? 1 : 0);
	}
	return false;
}

static void test_thread(void *arg)
{
	struct test_run *run = arg;
	run->test->fn(&run->ctx);
}

/* The test after prev in name order (the table is in link order), or NULL. */
static const struct ktest *next_by_name(const struct ktest *prev)
{
	const struct ktest *next = NULL;

	LINKER_TABLE_FOREACH(struct ktest, ktests, kt)
		if ((!prev || strcmp(kt->name, prev->name) > 0) &&
		    (!next || strcmp(kt->name, next->name) < 0))
			next = kt;
	return next;
}

int ktest_run(const char *selector)
{
	int passed = 0, failed = 0, skipped = 0, selected = 0;

	if (!LINKER_TABLE_COUNT(ktests)) {
		printk("ktest: %s\n", KTEST_NONE_HERE);
		printk("0 passed, 1 failed\n");
		return 1;
	}
	printk("ktest: running tests matching '%s' on %u CPU%s\n", selector, cpu_count(),
	       cpu_count() == 1 ? "" : "s");
	for (const struct ktest *kt = next_by_name(NULL); kt; kt = next_by_name(kt)) {
		if (!glob_list_match(selector, kt->name))
			continue;
		if (kt->manual && !names_exactly(selector, kt->name))
			continue;
		selected++;
		if (machine_lacks(kt->needs)) {
			printk("test %s: SKIPPED (%s)\n", kt->name, machine_lacks_reason(kt->needs));
			skipped++;
			continue;
		}
		if (kt->min_cpus > cpu_count()) {
			printk("test %s: SKIPPED (needs %u CPUs, has %u)\n", kt->name, kt->min_cpus,
			       cpu_count());
			skipped++;
			continue;
		}
		/* Heap, not stack: a test that never ends keeps using it. */
		struct test_run *run = kzalloc(sizeof(*run));
		struct thread *t = NULL;
		if (run) {
			char tname[THREAD_NAME_MAX];
			snprintf(tname, sizeof(tname), "test:%s", kt->name);
			run->test = kt;
			run->ctx.name = kt->name;
			t = thread_create(tname, test_thread, run, -1);
		}
		if (!t) {
			printk("test %s: FAILED: no memory to start it\n", kt->name);
			kfree(run);
			failed++;
			continue;
		}
		int code = 0;
		uint64_t started = clock_ticks();
		if (thread_join_timeout(t, (uint64_t)kt->timeout_s * HZ, &code) == -ETIMEDOUT) {
			printk("test %s: FAILED: did not finish within %u s; stopping the run\n",
			       kt->name, kt->timeout_s);
			failed++;
			break;
		}
		if (code == -EFAULT && !run->ctx.failed)
			ktest_fail(&run->ctx, "ktest.c", __LINE__, "the test thread was killed by a fault");
		if (run->ctx.failed) {
			printk("test %s: FAILED: %s\n", kt->name, run->ctx.why);
			failed++;
		} else if (run->ctx.skipped) {
			printk("test %s: SKIPPED (%s)\n", kt->name, run->ctx.why);
			skipped++;
		} else {
			printk("test %s: OK (%llu ms)\n", kt->name,
			       (unsigned long long)((clock_ticks() - started) * 1000 / HZ));
			passed++;
		}
		kfree(run);
	}
	if (selected == 0) {
		printk("ktest: no test matches '%s'\n", selector);
		failed++;
	}
	printk("ktest: %d passed, %d failed, %d skipped\n", passed, failed, skipped);
	printk("%d passed, %d failed\n", passed, failed);
	return failed;
}

/* Boot mode: run the selected tests, then end the QEMU run with their verdict. */
bool ktest_boot_requested(void)
{
	return boot_selector[0] != '\0';
}

void ktest_boot_run(void)
{
	int failures = ktest_run(boot_selector);
	arch_exit_emulator(failures ? EXIT_STATUS_FAILED : EXIT_STATUS_PASSED);
	printk("ktest: no exit device; halting here\n");
	for (;;)
		thread_sleep_ms(1000);
}

static int parse_test(const char *value)
{
	if (!value[0] || strlen(value) >= sizeof(boot_selector))
		return -EINVAL;
	strlcpy(boot_selector, value, sizeof(boot_selector));
	return 0;
}
BOOT_OPTION(test, "<patterns>", "run the matching in-kernel tests, then exit QEMU (33 pass, 35 fail)",
	    parse_test);

static int cmd_test(int argc, char **argv)
{
	if (argc > 2) {
		printk("test: usage: test [pattern[,pattern,!pattern...]]\n");
		return -EINVAL;
	}
	return ktest_run(argc == 2 ? argv[1] : "*") ? -EIO : 0;
}
SHELL_COMMAND(test, "[patterns]", "run in-kernel tests (all, or those matching)", cmd_test);

static void print_test(const struct ktest *kt)
{
	const char *lacks = machine_lacks_reason(kt->needs);
	printk("  %-32s needs %u CPU%s%s%s%s\n", kt->name, kt->min_cpus, kt->min_cpus == 1 ? "" : "s",
	       kt->manual ? ", run only by name (it crashes the kernel on purpose)" : "",
	       lacks ? "; skipped here: " : "", lacks ? lacks : "");
}

static int cmd_tests(int argc, char **argv)
{
	if (argc != 1) {
		printk("%s: takes no arguments\n", argv[0]);
		return -EINVAL;
	}
	if (!LINKER_TABLE_COUNT(ktests)) {
		printk("%s: %s\n", argv[0], KTEST_NONE_HERE);
		return -ENOENT;
	}
	for (const struct ktest *kt = next_by_name(NULL); kt; kt = next_by_name(kt))
		print_test(kt);
	printk("%zu tests\n", LINKER_TABLE_COUNT(ktests));
	return 0;
}
SHELL_COMMAND(tests, "", "list the in-kernel tests", cmd_tests);
