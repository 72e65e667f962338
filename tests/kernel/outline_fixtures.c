// SPDX-License-Identifier: BSD-2-Clause
/*
 * C functions with error paths for the outlining tests and benchmark
 * (test_outline.c, bench_outline.c): blocks a normal input never runs,
 * which counting should find cold. outline_fix_fail is a separate,
 * never-inlined function so the error path stays a call the tests can
 * find in the analysis (struct cfg_call) and so mark its block; it
 * keeps its return address, which tests map back to the original.
 */
#include <scion/compiler.h>
#include <stdint.h>

/* Where the last call of outline_fix_fail returned to: in a copy, while one runs. */
uint64_t outline_fix_fail_return;

__noinline long outline_fix_fail(long code, long why)
{
	outline_fix_fail_return = (uintptr_t)__builtin_return_address(0);
	return -1000 - code * 7 - why;
}

/*
 * A checksum of y rounds over x, with two error paths: bad arguments,
 * and a sum too large to report.
 */
__noinline long outline_fix_checked(long x, long y)
{
	if (x < 0 || y > 1000)
		return outline_fix_fail(x, y);
	long s = 0;
	for (long i = 0; i < y; i++) {
		s += (x ^ i) + ((i & 3) ? 1 : 2);
		__asm__ volatile("" : "+r"(s));
	}
	if (s > (1L << 30))
		return outline_fix_fail(s, 2);
	return s;
}

/* A recursive function: its copy's recursive call stays a call of the original's entry. */
__noinline long outline_fix_recursive(long n)
{
	__asm__ volatile("" ::: "memory");
	if (n < 2)
		return n;
	return outline_fix_recursive(n - 1) + outline_fix_recursive(n - 2) * 2;
}
