/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Graft points for tests, benchmarks and first experiments
 * (tests/kernel/graft_test_points.c): they change nothing unless a test
 * calls them. Their API changes test.cells, an array the tests read.
 */
#ifndef GRAFT_TEST_H
#define GRAFT_TEST_H

#include <graft/graft.h>

/*
 * test.method - Overview: combine two numbers.
 * Arguments: a, b.
 * Return value: anything; the default returns a + b. A result of
 *   0xdead is refused (to test result checks).
 * What it may change: test cells, through test_cell_set.
 * Caller's context: a test thread, or inside another graft; may not sleep.
 */
#define GRAFT_POINT_test_method "test.method", long, (long a, long b)
GRAFT_POINT_TYPEDEF(test_method);

/*
 * test.event (event) - Overview: something happened to value v.
 * Caller's context: as test.method. Default: nothing.
 */
#define GRAFT_POINT_test_event "test.event", void, (uint64_t v)
GRAFT_POINT_TYPEDEF(test_event);

#define TEST_CELLS 128

/* Read and set cell i (0 .. TEST_CELLS - 1); setting is undone on abort. */
uint64_t test_cell_get(unsigned i);
void test_cell_set(unsigned i, uint64_t v);
/* Call test.method through its slot (reaches a grafted test.method: nesting). */
long test_call_method(long a, long b);

#endif
