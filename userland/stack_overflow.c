// SPDX-License-Identifier: BSD-2-Clause
/*
 * stack_overflow: a hostile program. Recurses without end, each frame
 * holding a kilobyte it writes, until the stack runs into what lies
 * below it: the kernel must kill it (SIGSEGV on Linux, at the 8 MiB
 * limit) and carry on. Prints its depth every 1024 frames; never returns.
 */
#include <stdio.h>

static unsigned long deepest;
static volatile int stop;	/* never set: keeps the compiler from calling the recursion a bug */

static unsigned long recurse(unsigned long depth)
{
	volatile char frame[1024];
	frame[0] = (char)depth;
	frame[sizeof(frame) - 1] = (char)depth;
	deepest = depth;
	if (depth % 1024 == 0) {
		printf("stack_overflow: %lu KiB deep\n", depth);
		fflush(stdout);
	}
	if (stop)
		return depth;
	return recurse(depth + 1) + frame[0];
}

int main(void)
{
	printf("stack_overflow: recursing (expect to be killed by SIGSEGV)\n");
	fflush(stdout);
	unsigned long r = recurse(1);
	printf("stack_overflow: FAIL: returned %lu after %lu frames\n", r, deepest);
	return 1;
}
