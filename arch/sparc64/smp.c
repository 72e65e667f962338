// SPDX-License-Identifier: BSD-2-Clause
/*
 * One CPU (QEMU's sun4u has one): the SMP contract of arch/smp.h degrades
 * to it, and this_cpu() is a pointer set once (arch/percpu.h).
 * Bring-up: until kernel/smp/cpu.c (which owns the CPU table and needs
 * the scheduler) joins ARCH_CORE_SRCS, sparc64_cpu_bringup gives the
 * boot CPU a struct cpu of its own, so that the core code the port
 * already builds (spinlocks) finds this_cpu(). It goes when cpu.c comes.
 */
#include <scion/cpu.h>

#include "sparc64_internal.h"

struct cpu *sparc64_this_cpu;
static struct cpu boot_cpu;

void arch_set_this_cpu(struct cpu *c)
{
	sparc64_this_cpu = c;
}

void sparc64_cpu_bringup(void)
{
	boot_cpu.self = &boot_cpu;
	boot_cpu.index = 0;
	boot_cpu.online = true;
	arch_set_this_cpu(&boot_cpu);
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
