// SPDX-License-Identifier: BSD-2-Clause
/*
 * One CPU (QEMU's sun4u has one): the SMP contract of arch/smp.h degrades
 * to it, and this_cpu() is a pointer set once (arch/percpu.h) by the
 * core's cpu_init_boot (kernel/smp/cpu.c). arch_smp_boot starts no other
 * CPU; cross-calls and IPIs never have a target (kernel/smp/xcall.c runs
 * a call on the caller's own CPU directly), so an IPI is a bug.
 */
#include <scion/cpu.h>

#include "sparc64_internal.h"

struct cpu *sparc64_this_cpu;

void arch_set_this_cpu(struct cpu *c)
{
	sparc64_this_cpu = c;
}

void arch_send_ipi(unsigned cpu_index, enum ipi_kind kind)
{
	panic("IPI %d to CPU %u: sun4u has one CPU", (int)kind, cpu_index);
}

void arch_stop_other_cpus(void)
{
}

unsigned arch_smp_boot(void)
{
	return 1;
}

unsigned arch_cpus_present(void)
{
	return 1;
}
