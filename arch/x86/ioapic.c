// SPDX-License-Identifier: BSD-2-Clause
/*
 * The I/O APIC: routes ISA interrupt lines (through the MADT's source
 * overrides) to vectors on a chosen CPU. Redirection entries are written
 * under ioapic_lock (two 32-bit halves through the index register).
 */
#include <scion/mm.h>
#include <scion/printk.h>
#include <scion/spinlock.h>
#include <scion/errno.h>
#include <scion/cpu.h>
#include "x86_internal.h"
#include "vectors.h"

#define IOREGSEL 0x00
#define IOWIN    0x10
#define IOAPIC_VERSION 0x01
#define IOAPIC_REDIRECTION(pin) (0x10 + 2 * (pin))
#define REDIR_MASKED        (1u << 16)
#define REDIR_LEVEL         (1u << 15)
#define REDIR_ACTIVE_LOW    (1u << 13)
#define INTI_POLARITY_MASK  0x3
#define INTI_POLARITY_LOW   0x3
#define INTI_TRIGGER_MASK   0xc
#define INTI_TRIGGER_LEVEL  0xc

struct ioapic {
	volatile uint32_t *regs;
	uint32_t gsi_base;
	unsigned pins;
};

static struct ioapic ioapics[ACPI_MAX_IOAPICS];
static unsigned nioapics;
static struct spinlock ioapic_lock = SPINLOCK_INIT("ioapic");

static uint32_t ioapic_read(struct ioapic *io, uint32_t reg)
{
	io->regs[IOREGSEL / 4] = reg;
	return io->regs[IOWIN / 4];
}

static void ioapic_write(struct ioapic *io, uint32_t reg, uint32_t v)
{
	io->regs[IOREGSEL / 4] = reg;
	io->regs[IOWIN / 4] = v;
}

__init void ioapic_init(void)
{
	for (unsigned i = 0; i < acpi.nioapics; i++) {
		struct ioapic *io = &ioapics[nioapics];
		io->regs = mmio_map(acpi.ioapics[i].phys, PAGE_SIZE);
		if (!io->regs) {
			printk("ioapic: cannot map I/O APIC at 0x%x; skipped\n", acpi.ioapics[i].phys);
			continue;
		}
		io->gsi_base = acpi.ioapics[i].gsi_base;
		io->pins = ((ioapic_read(io, IOAPIC_VERSION) >> 16) & 0xff) + 1;
		for (unsigned pin = 0; pin < io->pins; pin++) {
			ioapic_write(io, IOAPIC_REDIRECTION(pin), REDIR_MASKED);
			ioapic_write(io, IOAPIC_REDIRECTION(pin) + 1, 0);
		}
		nioapics++;
	}
}

int ioapic_route_isa(unsigned isa_irq, uint8_t vector, uint32_t dest_apic_id)
{
	uint32_t gsi = isa_irq;
	uint32_t low = vector;

	/* ISA lines are edge triggered, active high, unless the firmware overrides. */
	for (unsigned i = 0; i < acpi.noverrides; i++) {
		const struct acpi_override *o = &acpi.overrides[i];
		if (o->isa_irq != isa_irq)
			continue;
		gsi = o->gsi;
		if ((o->flags & INTI_POLARITY_MASK) == INTI_POLARITY_LOW)
			low |= REDIR_ACTIVE_LOW;
		if ((o->flags & INTI_TRIGGER_MASK) == INTI_TRIGGER_LEVEL)
			low |= REDIR_LEVEL;
	}
	for (unsigned i = 0; i < nioapics; i++) {
		struct ioapic *io = &ioapics[i];
		if (gsi < io->gsi_base || gsi >= io->gsi_base + io->pins)
			continue;
		unsigned pin = gsi - io->gsi_base;
		irqflags_t f = spin_lock_irqsave(&ioapic_lock);
		ioapic_write(io, IOAPIC_REDIRECTION(pin) + 1, dest_apic_id << 24);
		ioapic_write(io, IOAPIC_REDIRECTION(pin), low);
		spin_unlock_irqrestore(&ioapic_lock, f);
		return 0;
	}
	return -ENODEV;
}

int irq_attach_isa(unsigned isa_irq, irq_handler_t fn, void *arg, const char *name)
{
	if (isa_irq >= 16)
		return -EINVAL;
	int err = arch_irq_attach_vector(VEC_ISA_BASE + isa_irq, fn, arg, name);
	if (err)
		return err;
	return ioapic_route_isa(isa_irq, VEC_ISA_BASE + isa_irq, cpu_by_index(0)->arch.apic_id);
}
