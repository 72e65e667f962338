/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Host stand-in for the executing CPU's struct cpu: a pointer the test
 * sets (host_this_cpu), so kernel sources that ask this_cpu() -- the
 * trace machinery of kernel/trace/ in the D oracle, tests/dref/ -- run
 * as single-threaded host code on whichever "CPU" the test has chosen.
 * Whoever calls this_cpu() defines host_this_cpu (tests/dref/dref_kernel.c).
 */
#ifndef ARCH_PERCPU_H
#define ARCH_PERCPU_H

struct cpu;

extern struct cpu *host_this_cpu;

static inline struct cpu *this_cpu(void)
{
	return host_this_cpu;
}

#endif
