// SPDX-License-Identifier: BSD-2-Clause
/*
 * PCI configuration mechanism #1 (arch/pci.h): the address register at
 * port 0xcf8 selects bus, device, function and dword; the data window at
 * 0xcfc..0xcff reads or writes it, a 16- or 8-bit access at the byte
 * offset within the dword.
 *
 * pci_config_lock makes each address-write + data-access pair atomic
 * with respect to other CPUs (and, since it masks interrupts, to
 * interrupt handlers on this CPU). It is a leaf lock.
 */
#include <scion/spinlock.h>
#include <arch/pci.h>
#include <arch/x86.h>

#define PCI_CONFIG_ADDRESS_PORT  0xcf8
#define PCI_CONFIG_DATA_PORT     0xcfc
#define PCI_CONFIG_ENABLE        (1u << 31)
#define PCI_CONFIG_BUS_SHIFT     16
#define PCI_CONFIG_DEV_SHIFT     11
#define PCI_CONFIG_FN_SHIFT      8
#define PCI_CONFIG_BUS_MASK      0xffu
#define PCI_CONFIG_DEV_MASK      0x1fu
#define PCI_CONFIG_FN_MASK       0x7u
#define PCI_CONFIG_DWORD_MASK    0xfcu
#define PCI_CONFIG_WORD_BYTE     0x2u	/* byte offset of a 16-bit access in the window */
#define PCI_CONFIG_BYTE_MASK     0x3u	/* byte offset of an 8-bit access in the window */

static struct spinlock pci_config_lock = SPINLOCK_INIT("pci-config");

static uint32_t config_address(unsigned bus, unsigned dev, unsigned fn, unsigned offset)
{
	return PCI_CONFIG_ENABLE | (bus & PCI_CONFIG_BUS_MASK) << PCI_CONFIG_BUS_SHIFT |
	       (dev & PCI_CONFIG_DEV_MASK) << PCI_CONFIG_DEV_SHIFT |
	       (fn & PCI_CONFIG_FN_MASK) << PCI_CONFIG_FN_SHIFT | (offset & PCI_CONFIG_DWORD_MASK);
}

bool arch_pci_present(void)
{
	irqflags_t f = spin_lock_irqsave(&pci_config_lock);
	uint32_t saved = inl(PCI_CONFIG_ADDRESS_PORT);
	outl(PCI_CONFIG_ADDRESS_PORT, PCI_CONFIG_ENABLE);
	bool present = inl(PCI_CONFIG_ADDRESS_PORT) == PCI_CONFIG_ENABLE;
	outl(PCI_CONFIG_ADDRESS_PORT, saved);
	spin_unlock_irqrestore(&pci_config_lock, f);
	return present;
}

uint32_t arch_pci_config_read32(unsigned bus, unsigned dev, unsigned fn, unsigned offset)
{
	irqflags_t f = spin_lock_irqsave(&pci_config_lock);
	outl(PCI_CONFIG_ADDRESS_PORT, config_address(bus, dev, fn, offset));
	uint32_t v = inl(PCI_CONFIG_DATA_PORT);
	spin_unlock_irqrestore(&pci_config_lock, f);
	return v;
}

uint16_t arch_pci_config_read16(unsigned bus, unsigned dev, unsigned fn, unsigned offset)
{
	irqflags_t f = spin_lock_irqsave(&pci_config_lock);
	outl(PCI_CONFIG_ADDRESS_PORT, config_address(bus, dev, fn, offset));
	uint16_t v = inw(PCI_CONFIG_DATA_PORT + (offset & PCI_CONFIG_WORD_BYTE));
	spin_unlock_irqrestore(&pci_config_lock, f);
	return v;
}

uint8_t arch_pci_config_read8(unsigned bus, unsigned dev, unsigned fn, unsigned offset)
{
	irqflags_t f = spin_lock_irqsave(&pci_config_lock);
	outl(PCI_CONFIG_ADDRESS_PORT, config_address(bus, dev, fn, offset));
	uint8_t v = inb(PCI_CONFIG_DATA_PORT + (offset & PCI_CONFIG_BYTE_MASK));
	spin_unlock_irqrestore(&pci_config_lock, f);
	return v;
}

void arch_pci_config_write32(unsigned bus, unsigned dev, unsigned fn, unsigned offset,
			     uint32_t value)
{
	irqflags_t f = spin_lock_irqsave(&pci_config_lock);
	outl(PCI_CONFIG_ADDRESS_PORT, config_address(bus, dev, fn, offset));
	outl(PCI_CONFIG_DATA_PORT, value);
	spin_unlock_irqrestore(&pci_config_lock, f);
}

void arch_pci_config_write16(unsigned bus, unsigned dev, unsigned fn, unsigned offset,
			     uint16_t value)
{
	irqflags_t f = spin_lock_irqsave(&pci_config_lock);
	outl(PCI_CONFIG_ADDRESS_PORT, config_address(bus, dev, fn, offset));
	outw(PCI_CONFIG_DATA_PORT + (offset & PCI_CONFIG_WORD_BYTE), value);
	spin_unlock_irqrestore(&pci_config_lock, f);
}

void arch_pci_config_write8(unsigned bus, unsigned dev, unsigned fn, unsigned offset,
			    uint8_t value)
{
	irqflags_t f = spin_lock_irqsave(&pci_config_lock);
	outl(PCI_CONFIG_ADDRESS_PORT, config_address(bus, dev, fn, offset));
	outb(PCI_CONFIG_DATA_PORT + (offset & PCI_CONFIG_BYTE_MASK), value);
	spin_unlock_irqrestore(&pci_config_lock, f);
}
