/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The executing CPU's struct cpu. QEMU's sun4u has one CPU, so it is one
 * pointer set once at boot (arch/sparc64/smp.c); a multi-CPU sparc64
 * would keep it in a global register instead. Same contract as
 * arch/x86/include/arch/percpu.h.
 */
#ifndef ARCH_PERCPU_H
#define ARCH_PERCPU_H

struct cpu;

extern struct cpu *sparc64_this_cpu;

static inline struct cpu *this_cpu(void)
{
	return sparc64_this_cpu;
}

void arch_set_this_cpu(struct cpu *c);

#endif
