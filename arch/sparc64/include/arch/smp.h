/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Multiprocessing on sparc64: QEMU's sun4u has exactly one CPU, so the
 * SMP contract (same as arch/x86/include/arch/smp.h) degrades to it:
 * one CPU present and booted, no other CPU to interrupt or stop.
 */
#ifndef ARCH_SMP_H
#define ARCH_SMP_H

#include <stdint.h>
#include <stdbool.h>

#define ARCH_MAX_CPUS 1

struct trap_frame;

struct arch_cpu {
	struct trap_frame *irq_frame;	/* the frame of the interrupt being handled */
};

/* The CPU's hardware id, for listings (shell `cpus`): the one CPU is 0. */
static inline unsigned arch_cpu_hw_id(const struct arch_cpu *a)
{
	(void)a;
	return 0;
}

enum ipi_kind {
	IPI_XCALL,	/* run queued cross-calls: xcall_handle_ipi() */
	IPI_RESCHED,	/* reschedule: sched_handle_resched_ipi() */
};

/* No other CPU exists: asking to interrupt one is a kernel bug (it panics). */
void arch_send_ipi(unsigned cpu_index, enum ipi_kind kind);

/* Nothing to stop: returns at once. */
void arch_stop_other_cpus(void);

/* Returns 1: the boot CPU is the only one. */
unsigned arch_smp_boot(void);

unsigned arch_cpus_present(void);

#endif
