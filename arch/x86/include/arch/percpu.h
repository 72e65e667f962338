/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Access to the executing CPU's struct cpu. On x86_64 the GS base of each
 * CPU points at its struct cpu, whose first field points at itself, so a
 * single %gs-relative load finds it.
 */
#ifndef ARCH_PERCPU_H
#define ARCH_PERCPU_H

struct cpu;

static inline struct cpu *this_cpu(void)
{
	struct cpu *c;
	__asm__ __volatile__("movq %%gs:0, %0" : "=r"(c));
	return c;
}

/* Point this CPU's per-CPU base at c (once, while bringing the CPU up). */
void arch_set_this_cpu(struct cpu *c);

#endif
