/* SPDX-License-Identifier: BSD-2-Clause */
/* Interfaces between the files of arch/x86 (not for kernel/). */
#ifndef ARCH_X86_INTERNAL_H
#define ARCH_X86_INTERNAL_H

#include <stdint.h>
#include <stdbool.h>
#include <arch/irq.h>
#include <arch/smp.h>

struct cpu;

/* cpu_tables.c */
void idt_init(void);
void cpu_tables_load(struct cpu *c);

/* trap.c */
int arch_irq_attach_vector(unsigned vector, irq_handler_t fn, void *arg, const char *name);
void trap_init_vectors(void);
void arch_irq_print_stats(void);

/* acpi.c: what the firmware's ACPI tables describe, parsed once at boot. */
#define ACPI_MAX_IOAPICS   4
#define ACPI_MAX_OVERRIDES 16

struct acpi_ioapic {
	uint32_t id;
	uint32_t phys;
	uint32_t gsi_base;
};

struct acpi_override {
	uint8_t isa_irq;
	uint32_t gsi;
	uint16_t flags;		/* MPS INTI flags: polarity bits 0-1, trigger bits 2-3 */
};

struct acpi_info {
	bool present;
	char oem_id[7];
	unsigned ncpus;
	uint32_t apic_ids[ARCH_MAX_CPUS];
	unsigned cpus_beyond_max;	/* enabled CPUs not used: over ARCH_MAX_CPUS */
	uint64_t lapic_phys;
	unsigned nioapics;
	struct acpi_ioapic ioapics[ACPI_MAX_IOAPICS];
	unsigned noverrides;
	struct acpi_override overrides[ACPI_MAX_OVERRIDES];
	uint32_t pm1a_cnt, pm1b_cnt;	/* I/O ports, 0 if absent */
	bool have_s5;
	uint8_t s5_typa, s5_typb;
};

extern struct acpi_info acpi;
void acpi_init(void);

/* lapic.c */
void lapic_init_boot(void);
void lapic_init_cpu(void);
void lapic_eoi(void);
uint32_t lapic_id(void);
void lapic_send_ipi(uint32_t apic_id, uint8_t vector);
void lapic_send_nmi_all_others(void);
void lapic_send_init(uint32_t apic_id);
void lapic_send_startup(uint32_t apic_id, uint8_t page);
void lapic_timer_periodic(uint8_t vector, uint32_t initial_count);
/* Current count while the timer counts down from 0xffffffff (calibration). */
void lapic_timer_oneshot_max(void);
uint32_t lapic_timer_current(void);

/* ioapic.c */
void ioapic_init(void);
int ioapic_route_isa(unsigned isa_irq, uint8_t vector, uint32_t dest_apic_id);

/* timer.c: the legacy PIC masked, the timer calibrated */
void pic_disable(void);
void timer_calibrate(void);

/* mmu.c */
void mmu_init(void);
/* Boot memory of this type (enum boot_mem_type) is RAM the direct map covers. */
bool mmu_direct_mapped_type(uint32_t type);

#endif
