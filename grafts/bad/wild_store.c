// SPDX-License-Identifier: BSD-2-Clause
/*
 * Misbehaving, for the sandbox: test.method(a, b) stores b over 4 KiB
 * from address a, a pointer it was handed (the tests pass kernel data:
 * `testpoint canary`). Sandboxed, every store is masked into the graft's
 * window, where nothing is mapped at that offset: the first one faults
 * and the transaction aborts, the kernel's data untouched. Its trusted
 * build (build/grafts/trusted/) writes the kernel's data: what the
 * sandbox prevents.
 */
#include <graft/test.h>

#define WILD_WORDS 512

static long wild_store(long a, long b)
{
	volatile uint64_t *p = (volatile uint64_t *)(uintptr_t)a;
	for (unsigned i = 0; i < WILD_WORDS; i++)
		p[i] = (uint64_t)b;
	return 0;
}
GRAFT_METHOD(test_method, "wild-store", 1, wild_store);
