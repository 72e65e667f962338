// SPDX-License-Identifier: BSD-2-Clause
/*
 * The graft points test.method and test.event and their API
 * (grafts/include/graft/test.h): a small object for the tests and
 * benchmarks of the graft machinery, and for a first graft of one's own.
 * The cells are changed only by test code and, through test_cell_set
 * (undo-logged), by grafts; tests run one at a time.
 */
#include <scion/graft.h>
#include <scion/txn.h>
#include <scion/shell.h>
#include <scion/printk.h>
#include <scion/string.h>
#include <scion/errno.h>
#include <graft/test.h>

static uint64_t cells[TEST_CELLS];

static long test_method_default(long a, long b)
{
	return a + b;
}

/* The default's body, called directly (the benchmark's baseline). */
__noinline long test_method_direct(long a, long b)
{
	return a + b;
}

static void test_event_default(uint64_t v)
{
	(void)v;
}

graft_fn_test_method *test_method_slot = test_method_default;
graft_fn_test_event *test_event_slot = test_event_default;

static const char *check_test_result(uint64_t result, const uint64_t args[6])
{
	(void)args;
	return result == 0xdead ? "0xdead is refused by test.method" : NULL;
}

GRAFT_POINT_METHOD(test_method, test_method_slot, test_method_default, 10000, check_test_result,
		   "combine a and b (test thread; may not sleep); default: a + b");
GRAFT_POINT_EVENT(test_event, test_event_slot, test_event_default, 10000,
		  "something happened to v (test thread); default: nothing");

uint64_t test_cell_get(unsigned i)
{
	return i < TEST_CELLS ? cells[i] : 0;
}
GRAFT_EXPORT(test_cell_get);

static void undo_cell(uint64_t i, uint64_t old)
{
	cells[i] = old;
}

void test_cell_set(unsigned i, uint64_t v)
{
	if (i >= TEST_CELLS)
		txn_abort_self("test_cell_set: cell %u does not exist (0..%u)", i, TEST_CELLS - 1);
	txn_log_undo(undo_cell, i, cells[i]);
	cells[i] = v;
}
GRAFT_EXPORT(test_cell_set);

long test_call_method(long a, long b)
{
	return test_method_slot(a, b);
}
GRAFT_EXPORT(test_call_method);

/* For the tests: the cells as an array. */
uint64_t *test_cells(void)
{
	return cells;
}

/*
 * Kernel data that no sandboxed graft may reach, for the sandbox's
 * tests (`testpoint canary`): its address goes to a graft as an
 * argument, its checksum shows whether anything wrote it.
 */
#define CANARY_WORDS 512
#define CANARY_PATTERN 0x5c10ca7a00000000ull
static uint64_t canary[CANARY_WORDS];

static void canary_fill(void)
{
	for (unsigned i = 0; i < CANARY_WORDS; i++)
		canary[i] = CANARY_PATTERN | i;
}

/* FNV-1a over the canary's bytes. */
static uint64_t canary_checksum(void)
{
	const uint8_t *p = (const uint8_t *)canary;
	uint64_t h = 0xcbf29ce484222325ull;
	for (size_t i = 0; i < sizeof(canary); i++)
		h = (h ^ p[i]) * 0x100000001b3ull;
	return h;
}

static int canary_command(bool fill)
{
	if (fill || !canary[0])
		canary_fill();
	printk("canary at 0x%llx, %zu bytes, checksum 0x%016llx\n",
	       (unsigned long long)(uintptr_t)canary, sizeof(canary),
	       (unsigned long long)canary_checksum());
	return 0;
}

/*
 * Shell: `testpoint A B` calls test.method(A, B); `testpoint event V`
 * fires test.event; `testpoint canary [fill]` shows (refills) the canary.
 */
static int cmd_testpoint(int argc, char **argv)
{
	uint64_t a, b;
	if (argc >= 2 && !strcmp(argv[1], "canary") &&
	    (argc == 2 || (argc == 3 && !strcmp(argv[2], "fill"))))
		return canary_command(argc == 3);
	if (argc == 3 && !strcmp(argv[1], "event") && !parse_u64(argv[2], &a, false)) {
		test_event_slot(a);
		printk("test.event(%llu) delivered\n", (unsigned long long)a);
		return 0;
	}
	if (argc != 3 || parse_u64(argv[1], &a, false) || parse_u64(argv[2], &b, false)) {
		printk("testpoint: usage: testpoint A B | testpoint event V (non-negative numbers) | "
		       "testpoint canary [fill]\n");
		return -EINVAL;
	}
	long r = test_method_slot((long)a, (long)b);
	printk("test.method(%llu, %llu) = %ld; cells 0-3: %llu %llu %llu %llu\n",
	       (unsigned long long)a, (unsigned long long)b, r, (unsigned long long)cells[0],
	       (unsigned long long)cells[1], (unsigned long long)cells[2], (unsigned long long)cells[3]);
	return 0;
}
SHELL_COMMAND(testpoint, "A B | event V | canary [fill]",
	      "call the graft point test.method (or fire test.event; or show the sandbox tests' canary)",
	      cmd_testpoint);
