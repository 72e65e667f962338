// SPDX-License-Identifier: BSD-2-Clause
/*
 * Bringing up the other CPUs (INIT, then STARTUP twice, as the MP
 * specification asks), and inter-processor interrupts.
 *
 * CPUs are started one at a time by the init thread. A started CPU gets
 * page tables that add an identity map of the trampoline page to the
 * kernel's, leaves them for the kernel's own as soon as it runs in the
 * higher half, and reports itself online; the starter waits for that
 * with a timeout and reports a CPU that never came.
 */
#include <scion/cpu.h>
#include <scion/sched.h>
#include <scion/clock.h>
#include <scion/printk.h>
#include <scion/string.h>
#include <arch/smp.h>
#include <arch/mmu.h>
#include <arch/timer.h>
#include <arch/x86.h>
#include "x86_internal.h"
#include "vectors.h"

#define TRAMPOLINE_PHYS 0x8000
#define STARTUP_TIMEOUT_US 1000000
#define STARTUP_POLL_US 20
#define OLD_CPU_INIT_DELAY_US 10000
#define CPUID_FAMILY_P6 6

/*
 * The MP specification's 10 ms wait after INIT is for CPUs before the P6
 * family; later ones take the STARTUP at once (Linux skips it as well).
 */
static uint64_t init_delay_us(void)
{
	uint32_t a, b, c, d;
	cpuid(1, 0, &a, &b, &c, &d);
	unsigned family = (a >> 8) & 0xf;
	return family >= CPUID_FAMILY_P6 ? 0 : OLD_CPU_INIT_DELAY_US;
}

extern const char ap_trampoline_start[], ap_trampoline_end[], ap_trampoline_params[];
uint64_t mmu_kernel_root(void);

struct trampoline_params {
	uint64_t cr3;
	uint64_t stack;
	uint64_t entry;
	uint64_t cpu;
};

/* Page tables for the trampoline's first steps: identity map of the low 2 MiB. */
static uint64_t ap_pml4[512] __aligned(4096);
static uint64_t ap_pdpt[512] __aligned(4096);
static uint64_t ap_pd[512] __aligned(4096);

#define PTE_PRESENT_WRITE 0x3ull
#define PTE_LARGE 0x80ull

unsigned arch_cpus_present(void)
{
	return acpi.ncpus ? acpi.ncpus : 1;
}

void arch_send_ipi(unsigned cpu_index, enum ipi_kind kind)
{
	uint8_t vector = kind == IPI_XCALL ? VEC_IPI_XCALL : VEC_IPI_RESCHED;
	lapic_send_ipi(cpu_by_index(cpu_index)->arch.apic_id, vector);
}

void arch_stop_other_cpus(void)
{
	if (cpu_count() > 1)
		lapic_send_nmi_all_others();
}

/* First C code of a secondary CPU, on its idle thread's stack. */
static __noreturn void ap_entry(struct cpu *c)
{
	write_cr3(mmu_kernel_root());
	write_cr4(read_cr4() | CR4_PGE);
	arch_set_this_cpu(c);
	cpu_tables_load(c);
	lapic_init_cpu();
	c->arch.apic_id = lapic_id();
	cpu_online_main(c);
}

static void prepare_ap_page_tables(void)
{
	const uint64_t *kernel = phys_to_virt(mmu_kernel_root());

	memset(ap_pml4, 0, sizeof(ap_pml4));
	for (int i = 256; i < 512; i++)
		ap_pml4[i] = kernel[i];
	ap_pml4[0] = virt_to_phys(ap_pdpt) | PTE_PRESENT_WRITE;
	ap_pdpt[0] = virt_to_phys(ap_pd) | PTE_PRESENT_WRITE;
	ap_pd[0] = 0 | PTE_PRESENT_WRITE | PTE_LARGE;
}

static bool start_cpu(struct cpu *c, uint32_t apic_id)
{
	struct thread *idle = sched_create_idle(c);
	if (!idle) {
		printk("smp: no memory for the idle thread of cpu %u\n", c->index);
		return false;
	}
	struct trampoline_params *p = phys_to_virt(
		TRAMPOLINE_PHYS + (uint64_t)(ap_trampoline_params - ap_trampoline_start));
	p->cr3 = virt_to_phys(ap_pml4);
	p->stack = idle->stack_top;
	p->entry = (uintptr_t)ap_entry;
	p->cpu = (uintptr_t)c;
	smp_mb();

	lapic_send_init(apic_id);
	arch_udelay(init_delay_us());
	for (int i = 0; i < 2 && !READ_ONCE(c->online); i++) {
		lapic_send_startup(apic_id, TRAMPOLINE_PHYS >> 12);
		arch_udelay(200);
	}
	/* Polled, not slept: a CPU is up within microseconds, a tick is 10 ms. */
	for (uint64_t us = 0; us < STARTUP_TIMEOUT_US && !READ_ONCE(c->online); us += STARTUP_POLL_US)
		arch_udelay(STARTUP_POLL_US);
	if (!READ_ONCE(c->online)) {
		printk("smp: cpu %u (APIC id %u) did not start within %d ms; left offline\n",
		       c->index, apic_id, STARTUP_TIMEOUT_US / 1000);
		return false;
	}
	return true;
}

unsigned arch_smp_boot(void)
{
	uint32_t bsp = cpu_by_index(0)->arch.apic_id;
	unsigned next = 1;

	if (acpi.ncpus <= 1)
		return cpu_count();
	memcpy(phys_to_virt(TRAMPOLINE_PHYS), ap_trampoline_start,
	       (size_t)(ap_trampoline_end - ap_trampoline_start));
	prepare_ap_page_tables();
	for (unsigned i = 0; i < acpi.ncpus; i++) {
		if (acpi.apic_ids[i] == bsp)
			continue;
		struct cpu *c = cpu_by_index(next);
		c->index = next;
		if (!start_cpu(c, acpi.apic_ids[i]))
			break;
		next++;
	}
	return cpu_count();
}
