// SPDX-License-Identifier: BSD-2-Clause
/*
 * PCI capabilities (scion/pci.h): the walk over a function's capability
 * list, and the two message-signalled interrupt capabilities, MSI (one
 * message, in configuration space) and MSI-X (a vector table in a BAR).
 *
 * These touch a device's configuration space and tables; only the driver
 * that claimed the device calls them, so they take no lock of their own.
 */
#include <scion/pci.h>
#include <scion/errno.h>

#define CAP_ID            0x0
#define CAP_NEXT          0x1
#define CAP_POINTER_MASK  0xfcu
#define CAP_FIRST_OFFSET  0x40	/* capabilities follow the 64-byte header */
#define CAP_MAX_COUNT     ((256 - CAP_FIRST_OFFSET) / 4)

/* MSI capability. */
#define MSI_CONTROL            0x2
#define MSI_ADDRESS_LOW        0x4
#define MSI_ADDRESS_HIGH       0x8	/* 64-bit capable only */
#define MSI_DATA_32            0x8
#define MSI_DATA_64            0xc
#define MSI_CONTROL_ENABLE     (1u << 0)
#define MSI_CONTROL_MME_MASK   (7u << 4)	/* multiple messages enabled: 0 = one */
#define MSI_CONTROL_64BIT      (1u << 7)

/* MSI-X capability and vector table. */
#define MSIX_CONTROL            0x2
#define MSIX_TABLE              0x4
#define MSIX_CONTROL_SIZE_MASK  0x7ffu	/* table size - 1 */
#define MSIX_CONTROL_FUNCTION_MASK (1u << 14)
#define MSIX_CONTROL_ENABLE     (1u << 15)
#define MSIX_TABLE_BIR_MASK     0x7u
#define MSIX_TABLE_OFFSET_MASK  0xfffffff8u
#define MSIX_ENTRY_BYTES        16
#define MSIX_ENTRY_WORDS        (MSIX_ENTRY_BYTES / 4)
#define MSIX_ENTRY_ADDR_LOW     0	/* word index in an entry */
#define MSIX_ENTRY_ADDR_HIGH    1
#define MSIX_ENTRY_DATA         2
#define MSIX_ENTRY_CONTROL      3
#define MSIX_ENTRY_MASKED       (1u << 0)

static bool has_capabilities(const struct pci_dev *d)
{
	/* A CardBus header (type 2) keeps its list pointer elsewhere: not walked. */
	return (d->header_type == PCI_HEADER_TYPE_NORMAL ||
		d->header_type == PCI_HEADER_TYPE_BRIDGE) &&
	       (pci_read16(d, PCI_STATUS) & PCI_STATUS_CAPABILITIES);
}

void pci_foreach_capability(const struct pci_dev *d,
			    void (*fn)(const struct pci_dev *d, unsigned offset, uint8_t id,
				       void *arg), void *arg)
{
	if (!has_capabilities(d))
		return;
	unsigned offset = pci_read8(d, PCI_CAPABILITIES) & CAP_POINTER_MASK;
	for (unsigned n = 0; offset >= CAP_FIRST_OFFSET && n < CAP_MAX_COUNT; n++) {
		fn(d, offset, pci_read8(d, offset + CAP_ID), arg);
		offset = pci_read8(d, offset + CAP_NEXT) & CAP_POINTER_MASK;
	}
}

unsigned pci_next_capability(const struct pci_dev *d, unsigned after, uint8_t cap_id)
{
	if (!has_capabilities(d))
		return 0;
	unsigned offset = pci_read8(d, PCI_CAPABILITIES) & CAP_POINTER_MASK;
	bool passed = after == 0;
	for (unsigned n = 0; offset >= CAP_FIRST_OFFSET && n < CAP_MAX_COUNT; n++) {
		if (passed && pci_read8(d, offset + CAP_ID) == cap_id)
			return offset;
		if (offset == after)
			passed = true;
		offset = pci_read8(d, offset + CAP_NEXT) & CAP_POINTER_MASK;
	}
	return 0;
}

int pci_msi_enable(const struct pci_dev *d, uint64_t addr, uint32_t data)
{
	unsigned cap = pci_next_capability(d, 0, PCI_CAP_MSI);
	if (!cap)
		return -ENODEV;
	uint16_t control = pci_read16(d, cap + MSI_CONTROL);
	bool is64 = control & MSI_CONTROL_64BIT;
	if (!is64 && (addr >> 32))
		return -ERANGE;
	pci_write16(d, cap + MSI_CONTROL, control & ~(MSI_CONTROL_ENABLE | MSI_CONTROL_MME_MASK));
	pci_write32(d, cap + MSI_ADDRESS_LOW, (uint32_t)addr);
	if (is64) {
		pci_write32(d, cap + MSI_ADDRESS_HIGH, (uint32_t)(addr >> 32));
		pci_write16(d, cap + MSI_DATA_64, (uint16_t)data);
	} else {
		pci_write16(d, cap + MSI_DATA_32, (uint16_t)data);
	}
	pci_write16(d, cap + MSI_CONTROL, (control & ~MSI_CONTROL_MME_MASK) | MSI_CONTROL_ENABLE);
	pci_enable(d, PCI_COMMAND_INTX_DISABLE);
	return 0;
}

int pci_msix_init(const struct pci_dev *d, struct pci_msix *m)
{
	unsigned cap = pci_next_capability(d, 0, PCI_CAP_MSIX);
	if (!cap)
		return -ENODEV;
	uint16_t control = pci_read16(d, cap + MSIX_CONTROL);
	uint32_t table = pci_read32(d, cap + MSIX_TABLE);
	m->cap = cap;
	m->entries = (control & MSIX_CONTROL_SIZE_MASK) + 1u;
	m->table = pci_map_bar(d, table & MSIX_TABLE_BIR_MASK, table & MSIX_TABLE_OFFSET_MASK,
			       (uint64_t)m->entries * MSIX_ENTRY_BYTES);
	if (!m->table)
		return -ENOMEM;
	/* Enabled with the whole function masked, then every entry masked one by one. */
	pci_write16(d, cap + MSIX_CONTROL, control | MSIX_CONTROL_ENABLE | MSIX_CONTROL_FUNCTION_MASK);
	for (unsigned i = 0; i < m->entries; i++)
		m->table[i * MSIX_ENTRY_WORDS + MSIX_ENTRY_CONTROL] = MSIX_ENTRY_MASKED;
	pci_enable(d, PCI_COMMAND_INTX_DISABLE);
	return 0;
}

int pci_msix_set_entry(struct pci_msix *m, unsigned entry, uint64_t addr, uint32_t data)
{
	if (entry >= m->entries)
		return -EINVAL;
	volatile uint32_t *e = &m->table[entry * MSIX_ENTRY_WORDS];
	e[MSIX_ENTRY_CONTROL] = MSIX_ENTRY_MASKED;
	e[MSIX_ENTRY_ADDR_LOW] = (uint32_t)addr;
	e[MSIX_ENTRY_ADDR_HIGH] = (uint32_t)(addr >> 32);
	e[MSIX_ENTRY_DATA] = data;
	e[MSIX_ENTRY_CONTROL] = 0;
	return 0;
}

void pci_msix_unmask_function(const struct pci_dev *d, const struct pci_msix *m)
{
	uint16_t control = pci_read16(d, m->cap + MSIX_CONTROL);
	pci_write16(d, m->cap + MSIX_CONTROL, control & ~MSIX_CONTROL_FUNCTION_MASK);
}
