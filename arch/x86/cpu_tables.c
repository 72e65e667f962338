// SPDX-License-Identifier: BSD-2-Clause
/*
 * Per-CPU descriptor tables: each CPU has its own GDT (its TSS descriptor
 * carries a busy bit) and TSS, whose interrupt stack table gives double
 * faults and NMIs stacks of their own, and every interrupt an entry
 * stack that trap_entry.S moves it off (so an interrupt never depends
 * on the room left on the stack it interrupts). The IDT is shared.
 */
#include <scion/cpu.h>
#include <scion/string.h>
#include <arch/x86.h>
#include <arch/user.h>
#include "vectors.h"

#define GDT_KERNEL_CODE 0x00209a0000000000ull	/* present, DPL0, code, long mode */
#define GDT_KERNEL_DATA 0x0000920000000000ull	/* present, DPL0, data, writable */
#define GDT_USER_DATA   0x0000f20000000000ull	/* present, DPL3, data, writable */
#define GDT_USER_CODE   0x0020fa0000000000ull	/* present, DPL3, code, long mode */
#define TSS_TYPE_AVAILABLE 0x89ull

struct idt_gate {
	uint16_t offset_low;
	uint16_t selector;
	uint8_t ist;
	uint8_t type_attr;
	uint16_t offset_mid;
	uint32_t offset_high;
	uint32_t reserved;
} __packed;

#define IDT_INTERRUPT_GATE 0x8e	/* present, DPL0, 64-bit interrupt gate */

static struct idt_gate idt[256] __aligned(16);
extern char trap_stubs[];
#define TRAP_STUB_SIZE 16

struct descriptor_pointer {
	uint16_t limit;
	uint64_t base;
} __packed;

void arch_set_this_cpu(struct cpu *c)
{
	wrmsr(MSR_GS_BASE, (uintptr_t)c);
}

static void set_gate(unsigned vector, unsigned ist)
{
	uintptr_t handler = (uintptr_t)trap_stubs + vector * TRAP_STUB_SIZE;

	idt[vector] = (struct idt_gate){
		.offset_low = (uint16_t)handler,
		.selector = SEL_KERNEL_CODE,
		.ist = (uint8_t)ist,
		.type_attr = IDT_INTERRUPT_GATE,
		.offset_mid = (uint16_t)(handler >> 16),
		.offset_high = (uint32_t)(handler >> 32),
	};
}

/* Fill the shared IDT. Caller: the boot CPU, once. */
void idt_init(void)
{
	for (unsigned v = 0; v < 256; v++)
		set_gate(v, v >= VEC_FIRST_IRQ ? IST_ENTRY : 0);
	set_gate(VEC_DOUBLE_FAULT, IST_DOUBLE_FAULT);
	set_gate(VEC_NMI, IST_NMI);
}

/*
 * Load this CPU's GDT, TSS and the IDT. Reloads CS with a far return and
 * the data segments. Caller: each CPU once, interrupts masked, after
 * arch_set_this_cpu.
 */
void cpu_tables_load(struct cpu *c)
{
	struct arch_cpu *a = &c->arch;
	uintptr_t tss = (uintptr_t)&a->tss;

	memset(&a->tss, 0, sizeof(a->tss));
	a->tss.ist[IST_DOUBLE_FAULT - 1] = (uintptr_t)a->df_stack + sizeof(a->df_stack);
	a->tss.ist[IST_NMI - 1] = (uintptr_t)a->nmi_stack + sizeof(a->nmi_stack);
	a->tss.ist[IST_ENTRY - 1] = (uintptr_t)a->entry_stack + sizeof(a->entry_stack);
	a->tss.iomap_base = sizeof(a->tss);

	a->gdt[0] = 0;
	a->gdt[1] = GDT_KERNEL_CODE;
	a->gdt[2] = GDT_KERNEL_DATA;
	a->gdt[SEL_USER_DATA / 8] = GDT_USER_DATA;
	a->gdt[SEL_USER_CODE / 8] = GDT_USER_CODE;
	a->gdt[5] = (sizeof(a->tss) - 1) | ((tss & 0xffffff) << 16) |
		    (TSS_TYPE_AVAILABLE << 40) | ((tss >> 24) & 0xff) << 56;
	a->gdt[6] = tss >> 32;

	struct descriptor_pointer gdtp = { sizeof(a->gdt) - 1, (uintptr_t)a->gdt };
	struct descriptor_pointer idtp = { sizeof(idt) - 1, (uintptr_t)idt };
	__asm__ __volatile__(
		"lgdt %0\n\t"
		"pushq %[code]\n\t"
		"leaq 1f(%%rip), %%rax\n\t"
		"pushq %%rax\n\t"
		"lretq\n"
		"1:\n\t"
		"movl %[data], %%eax\n\t"
		"movl %%eax, %%ds\n\t"
		"movl %%eax, %%es\n\t"
		"movl %%eax, %%ss\n\t"
		"ltr %w[tss]\n\t"
		"lidt %1"
		:: "m"(gdtp), "m"(idtp), [code] "i"(SEL_KERNEL_CODE),
		   [data] "i"(SEL_KERNEL_DATA), [tss] "r"(SEL_TSS)
		: "rax", "memory");
	arch_user_cpu_init();
}
