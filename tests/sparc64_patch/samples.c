// SPDX-License-Identifier: BSD-2-Clause
/*
 * Sample functions the sparc64 patch test splices at every instruction
 * (tests/sparc64_patch/test_patch.c): loops, conditional branches of each
 * kind (GCC's -O2 makes many of them annulled), calls, leaf and non-leaf
 * functions with save/restore, recursion and a switch. Each takes two
 * longs and returns a long; the test runs a copy of each and compares.
 * Compiled with -fno-jump-tables, so a copy's switch stays inside the copy.
 */
#define NOINLINE __attribute__((noinline, used))

NOINLINE long s_leaf_add(long a, long b)
{
	return a * 3 + b;
}

NOINLINE long s_loop_sum(long a, long b)
{
	long s = 0;

	for (long i = 0; i < (a & 31); i++)
		s += i * i + b;
	return s;
}

NOINLINE long s_branches(long a, long b)
{
	long r = 0;
	unsigned long ua = (unsigned long)a, ub = (unsigned long)b;

	if (a == b)
		r += 1;
	if (a < b)
		r += 2;
	if (ua > ub)
		r += 4;
	if (a >= 0 && b != 0)
		r += 8;
	if ((int)a <= (int)b || a == 7)
		r += 16;
	if (!a)
		r += 32;
	return r;
}

NOINLINE long s_helper(long x)
{
	return x ^ (x >> 2);
}

NOINLINE long s_nonleaf(long a, long b)
{
	long s = 0;

	for (long i = 0; i < (b & 7); i++)
		s += s_helper(a + i);
	return s;
}

NOINLINE long s_fib(long a, long b)
{
	long n = a & 15;

	if (n < 2)
		return n + b;
	return s_fib(n - 1, b) + s_fib(n - 2, 0);
}

NOINLINE long s_switch(long a, long b)
{
	switch ((a + b) & 7) {
	case 0: return b;
	case 1: return a * 5;
	case 2: return a - b;
	case 3: return 17;
	case 4: return a << 3;
	case 6: return b * b;
	default: return -1;
	}
}

NOINLINE long s_search(long a, long b)
{
	static const long tbl[] = { 3, 9, 27, 4, 16, 64, 5, 25 };
	long i = 0;

	while (i < 8) {
		if (tbl[i] == a)
			break;
		if (tbl[i] > b + 20)
			return -i;
		i++;
	}
	return i;
}
