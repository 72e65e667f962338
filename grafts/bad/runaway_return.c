// SPDX-License-Identifier: BSD-2-Clause
/*
 * Misbehaving, for the sandbox: test.method(a, n) writes a into n
 * words of a four-word array on its stack, running past it over its
 * own return address (and whatever lies above), then returns. The
 * guarded return masks the forged address into the graft's own text,
 * at a bundle start: the graft goes astray inside itself (ud2 or its
 * own code again) until a trap or its time budget aborts the
 * transaction; it can reach no kernel code. Never load its trusted
 * build: that one returns to a.
 */
#include <graft/test.h>

#define FRAME_WORDS 4

static long runaway_return(long a, long n)
{
	volatile uint64_t frame[FRAME_WORDS];
	volatile uint64_t *p = frame;

	__asm__("" : "+r"(p));	/* the compiler may not bound the loop by the array */
	for (long i = 0; i < n; i++)
		p[i] = (uint64_t)a;
	return (long)frame[0];
}
GRAFT_METHOD(test_method, "runaway-return", 1, runaway_return);
