/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The arch side of multiprocessing: per-CPU descriptor tables, bringing
 * the other CPUs up, and inter-processor interrupts.
 */
#ifndef ARCH_SMP_H
#define ARCH_SMP_H

#include <stdint.h>
#include <stdbool.h>

#define ARCH_MAX_CPUS 8

struct tss {
	uint32_t reserved0;
	uint64_t rsp[3];
	uint64_t reserved1;
	uint64_t ist[7];
	uint64_t reserved2;
	uint16_t reserved3;
	uint16_t iomap_base;
} __attribute__((packed));

#define GDT_ENTRIES 7	/* null, kcode, kdata, udata, ucode, tss (2) */
#define IST_STACK_SIZE 8192

/* Per-CPU arch state, embedded in struct cpu. Written only by its CPU after bring-up. */
struct trap_frame;
struct arch_as;

struct arch_cpu {
	uint32_t apic_id;
	struct trap_frame *irq_frame;	/* the frame of the interrupt being handled */
	struct arch_as *active_as;	/* interrupts masked: the user address space CR3
					   holds (NULL: none); switch.S compares it at every
					   switch (address_space.c) */
	uint64_t gdt[GDT_ENTRIES] __attribute__((aligned(16)));
	struct tss tss __attribute__((aligned(16)));
	/* Stacks for double fault and NMI: they must work on a broken stack. */
	uint8_t df_stack[IST_STACK_SIZE] __attribute__((aligned(16)));
	uint8_t nmi_stack[IST_STACK_SIZE] __attribute__((aligned(16)));
	/* Where interrupts arrive, to be moved off at once (trap_entry.S). */
	uint8_t entry_stack[IST_STACK_SIZE] __attribute__((aligned(16)));
};

/* The CPU's hardware id, for listings (shell `cpus`): its local APIC id. */
static inline unsigned arch_cpu_hw_id(const struct arch_cpu *a)
{
	return a->apic_id;
}

enum ipi_kind {
	IPI_XCALL,	/* run queued cross-calls: xcall_handle_ipi() */
	IPI_RESCHED,	/* reschedule: sched_handle_resched_ipi() */
};

/*
 * arch_send_ipi - interrupt another CPU.
 * Arguments: cpu_index, an online CPU; kind, which handler runs there.
 * Return value: none; does not wait for the target to handle it.
 * Caller's context: any, including interrupt handlers and code holding
 *   spinlocks; never sleeps.
 */
void arch_send_ipi(unsigned cpu_index, enum ipi_kind kind);

/*
 * arch_stop_other_cpus - make every other CPU halt with interrupts
 * masked, via NMI so that CPUs spinning with interrupts off stop too.
 * Arguments: none. Return value: none (the others never resume).
 * Caller's context: panic, interrupts masked, panic_in_progress set.
 */
void arch_stop_other_cpus(void);

/*
 * arch_smp_boot - start every CPU the firmware lists, one at a time.
 * Each new CPU runs cpu_online_main() (kernel/smp/cpu.c) on the stack of
 * its idle thread.
 * Arguments: none.
 * Return value: the number of CPUs online afterwards; a CPU that does
 *   not start is reported and left offline.
 * Caller's context: the init thread, once; interrupts enabled; no locks.
 */
unsigned arch_smp_boot(void);

/*
 * arch_cpus_present - how many CPUs the firmware describes (ACPI MADT),
 * capped at ARCH_MAX_CPUS; 1 without ACPI. Caller's context: any.
 */
unsigned arch_cpus_present(void);

#endif
