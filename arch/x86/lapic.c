// SPDX-License-Identifier: BSD-2-Clause
/*
 * The local APIC (xAPIC, memory mapped): interrupt acknowledge, IPIs and
 * the per-CPU timer. ICR writes take two register stores, so they run
 * with interrupts masked: an interrupt handler sending its own IPI
 * between the two would corrupt the pair.
 */
#include <scion/mm.h>
#include <scion/printk.h>
#include <arch/x86.h>
#include <arch/cpu.h>
#include "x86_internal.h"
#include "vectors.h"

enum {
	LAPIC_ID = 0x20,
	LAPIC_TPR = 0x80,
	LAPIC_EOI = 0xb0,
	LAPIC_SVR = 0xf0,
	LAPIC_ICR_LOW = 0x300,
	LAPIC_ICR_HIGH = 0x310,
	LAPIC_LVT_TIMER = 0x320,
	LAPIC_LVT_LINT0 = 0x350,
	LAPIC_LVT_LINT1 = 0x360,
	LAPIC_LVT_ERROR = 0x370,
	LAPIC_TIMER_INITIAL = 0x380,
	LAPIC_TIMER_CURRENT = 0x390,
	LAPIC_TIMER_DIVIDE = 0x3e0,
};

#define SVR_ENABLE          0x100
#define LVT_MASKED          0x10000
#define LVT_TIMER_PERIODIC  0x20000
#define TIMER_DIVIDE_BY_16  0x3
#define ICR_DELIVERY_PENDING 0x1000
#define ICR_FIXED           0x000
#define ICR_NMI             0x400
#define ICR_INIT            0x500
#define ICR_STARTUP         0x600
#define ICR_ASSERT          0x4000
#define ICR_LEVEL           0x8000
#define ICR_ALL_BUT_SELF    0xc0000
#define APIC_BASE_ENABLE    0x800

static volatile uint32_t *lapic;

static inline uint32_t rd(unsigned reg)
{
	return lapic[reg / 4];
}

static inline void wr(unsigned reg, uint32_t v)
{
	lapic[reg / 4] = v;
}

__init void lapic_init_boot(void)
{
	uint64_t phys = acpi.lapic_phys ? acpi.lapic_phys : 0xfee00000ull;

	lapic = mmio_map(phys, PAGE_SIZE);
	if (!lapic)
		panic("cannot map the local APIC at 0x%llx", (unsigned long long)phys);
}

void lapic_init_cpu(void)
{
	wrmsr(MSR_APIC_BASE, rdmsr(MSR_APIC_BASE) | APIC_BASE_ENABLE);
	wr(LAPIC_TPR, 0);
	wr(LAPIC_LVT_LINT0, LVT_MASKED);
	wr(LAPIC_LVT_LINT1, LVT_MASKED);
	wr(LAPIC_LVT_ERROR, LVT_MASKED);
	wr(LAPIC_LVT_TIMER, LVT_MASKED);
	wr(LAPIC_SVR, SVR_ENABLE | VEC_SPURIOUS);
}

void lapic_eoi(void)
{
	wr(LAPIC_EOI, 0);
}

uint32_t lapic_id(void)
{
	return rd(LAPIC_ID) >> 24;
}

static void send_icr(uint32_t apic_id, uint32_t low)
{
	irqflags_t f = arch_irq_save();
	while (rd(LAPIC_ICR_LOW) & ICR_DELIVERY_PENDING)
		cpu_relax();
	wr(LAPIC_ICR_HIGH, apic_id << 24);
	wr(LAPIC_ICR_LOW, low);
	arch_irq_restore(f);
}

void lapic_send_ipi(uint32_t apic_id, uint8_t vector)
{
	send_icr(apic_id, ICR_FIXED | vector);
}

void lapic_send_nmi_all_others(void)
{
	send_icr(0, ICR_NMI | ICR_ALL_BUT_SELF | ICR_ASSERT);
}

void lapic_send_init(uint32_t apic_id)
{
	send_icr(apic_id, ICR_INIT | ICR_LEVEL | ICR_ASSERT);
}

void lapic_send_startup(uint32_t apic_id, uint8_t page)
{
	send_icr(apic_id, ICR_STARTUP | page);
}

void lapic_timer_periodic(uint8_t vector, uint32_t initial_count)
{
	wr(LAPIC_TIMER_DIVIDE, TIMER_DIVIDE_BY_16);
	wr(LAPIC_LVT_TIMER, LVT_TIMER_PERIODIC | vector);
	wr(LAPIC_TIMER_INITIAL, initial_count);
}

void lapic_timer_oneshot_max(void)
{
	wr(LAPIC_TIMER_DIVIDE, TIMER_DIVIDE_BY_16);
	wr(LAPIC_LVT_TIMER, LVT_MASKED);
	wr(LAPIC_TIMER_INITIAL, 0xffffffffu);
}

uint32_t lapic_timer_current(void)
{
	return rd(LAPIC_TIMER_CURRENT);
}
