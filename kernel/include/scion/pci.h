/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The PCI bus (kernel/dev/pci.c, pci_caps.c): the functions found at
 * boot, their BARs (as the firmware assigned them), the capability list,
 * and the MSI and MSI-X capabilities.
 *
 * The device list is built once by pci_init, before any driver probes,
 * and never changes afterwards: readers take no lock. A device's
 * configuration space belongs to the driver that claimed it (the `claimed`
 * field); the arch layer makes each single access atomic.
 */
#ifndef SCION_PCI_H
#define SCION_PCI_H

#include <scion/compiler.h>

#define PCI_MAX_BUSES        256
#define PCI_MAX_DEVICES      32	/* per bus */
#define PCI_MAX_FUNCTIONS    8	/* per device */
#define PCI_NUM_BARS         6	/* in a type 0 header */

/* Standard configuration header registers. */
#define PCI_VENDOR_ID        0x00
#define PCI_DEVICE_ID        0x02
#define PCI_COMMAND          0x04
#define PCI_STATUS           0x06
#define PCI_REVISION         0x08
#define PCI_PROG_IF          0x09
#define PCI_SUBCLASS         0x0a
#define PCI_CLASS            0x0b
#define PCI_HEADER_TYPE      0x0e
#define PCI_BAR0             0x10
#define PCI_BAR_STRIDE       4	/* bytes per BAR register */
#define PCI_SECONDARY_BUS    0x19	/* type 1 (bridge) header */
#define PCI_SUBSYSTEM_VENDOR 0x2c
#define PCI_SUBSYSTEM_ID     0x2e
#define PCI_CAPABILITIES     0x34
#define PCI_INTERRUPT_LINE   0x3c
#define PCI_INTERRUPT_PIN    0x3d

#define PCI_VENDOR_NONE      0xffff	/* no function at this address */

#define PCI_COMMAND_IO          (1u << 0)
#define PCI_COMMAND_MEMORY      (1u << 1)
#define PCI_COMMAND_BUS_MASTER  (1u << 2)
#define PCI_COMMAND_INTX_DISABLE (1u << 10)

#define PCI_STATUS_CAPABILITIES (1u << 4)

#define PCI_HEADER_TYPE_MASK         0x7f
#define PCI_HEADER_TYPE_NORMAL       0x00
#define PCI_HEADER_TYPE_BRIDGE       0x01
#define PCI_HEADER_MULTIFUNCTION     0x80

/* Capability ids. */
#define PCI_CAP_POWER        0x01
#define PCI_CAP_MSI          0x05
#define PCI_CAP_VENDOR       0x09
#define PCI_CAP_EXPRESS      0x10
#define PCI_CAP_MSIX         0x11

enum pci_bar_kind { PCI_BAR_NONE, PCI_BAR_IO, PCI_BAR_MEM32, PCI_BAR_MEM64 };

struct pci_bar {
	enum pci_bar_kind kind;
	bool prefetchable;
	uint64_t base;			/* as the firmware assigned it */
	uint64_t size;			/* bytes decoded; 0 when unimplemented */
};

struct pci_dev {
	uint8_t bus, dev, fn;			/* set once */
	uint16_t vendor, device;		/* set once */
	uint16_t subsystem_vendor, subsystem_id;	/* set once */
	uint8_t class_code, subclass, prog_if, revision;	/* set once */
	uint8_t header_type;			/* set once, without the multifunction bit */
	uint8_t irq_line, irq_pin;		/* set once */
	struct pci_bar bars[PCI_NUM_BARS];	/* set once; the upper half of a
						   64-bit BAR is PCI_BAR_NONE */
	const char *claimed;			/* driver name once a driver took it;
						   set by that driver's probe */
	struct pci_dev *next;			/* set once: enumeration order */
};

/*
 * pci_init - enumerate every function reachable from bus 0 (through
 * PCI-to-PCI bridges), size their BARs and build the device list.
 * Caller's context: boot thread, once, before any driver probes.
 */
void pci_init(void);

/* The first device found (bus, device, function order), or NULL. */
struct pci_dev *pci_first(void);

/*
 * pci_find - the next device after from (NULL: from the start) with this
 * vendor and device id. Return value: the device or NULL. Any context.
 */
struct pci_dev *pci_find(uint16_t vendor, uint16_t device, struct pci_dev *from);

/* A short name for what the device is ("virtio-blk", "IDE controller"). */
const char *pci_device_name(const struct pci_dev *d);

/* Configuration space of d (offsets below 256). Any context. */
uint32_t pci_read32(const struct pci_dev *d, unsigned offset);
uint16_t pci_read16(const struct pci_dev *d, unsigned offset);
uint8_t pci_read8(const struct pci_dev *d, unsigned offset);
void pci_write32(const struct pci_dev *d, unsigned offset, uint32_t value);
void pci_write16(const struct pci_dev *d, unsigned offset, uint16_t value);
void pci_write8(const struct pci_dev *d, unsigned offset, uint8_t value);

/* Set bits (PCI_COMMAND_*) in d's command register. Caller: d's driver. */
void pci_enable(const struct pci_dev *d, uint16_t command_bits);

/*
 * pci_map_bar - map length bytes at offset into memory BAR bar, uncached.
 * Return value: the mapping, or NULL for an I/O or absent BAR, a range
 *   outside the BAR, or when the mapping fails.
 * Caller's context: thread or boot; never called with spinlocks held.
 */
void *pci_map_bar(const struct pci_dev *d, unsigned bar, uint64_t offset, uint64_t length);

/*
 * pci_next_capability - walk d's capability list.
 * Arguments: after is the offset of the previous capability found, or 0
 *   to start; cap_id the id wanted.
 * Return value: the configuration-space offset of the next capability
 *   with that id, or 0 when there is none. A malformed (looping) list
 *   ends the walk after the most capabilities 256 bytes can hold.
 * Caller's context: any.
 */
unsigned pci_next_capability(const struct pci_dev *d, unsigned after, uint8_t cap_id);

/* Visit every capability of d: fn(d, offset, id, arg). Any context. */
void pci_foreach_capability(const struct pci_dev *d,
			    void (*fn)(const struct pci_dev *d, unsigned offset, uint8_t id,
				       void *arg), void *arg);

/*
 * pci_msi_enable - program d's MSI capability for one message and enable it.
 * Arguments: addr and data from arch_msi_message.
 * Return value: 0, -ENODEV without an MSI capability, -ERANGE for an
 *   address above 4 GiB on a 32-bit-only capability.
 * Caller's context: d's driver, thread or boot.
 */
int pci_msi_enable(const struct pci_dev *d, uint64_t addr, uint32_t data);

/* The MSI-X capability of one device, once mapped by pci_msix_init. */
struct pci_msix {
	unsigned cap;			/* set once: config offset of the capability */
	unsigned entries;		/* set once: table size */
	volatile uint32_t *table;	/* set once: the mapped vector table */
};

/*
 * pci_msix_init - find d's MSI-X capability and map its vector table.
 * Every entry is left masked; MSI-X is enabled with the function masked
 * (no message is sent until pci_msix_unmask_function).
 * Return value: 0, -ENODEV without the capability, -ENOMEM when the
 *   table cannot be mapped.
 * Caller's context: d's driver, thread or boot; no spinlocks held.
 */
int pci_msix_init(const struct pci_dev *d, struct pci_msix *m);

/*
 * pci_msix_set_entry - write entry's message (from arch_msi_message) and
 * unmask it. Return value: 0 or -EINVAL for an entry beyond the table.
 * Caller's context: d's driver, any context.
 */
int pci_msix_set_entry(struct pci_msix *m, unsigned entry, uint64_t addr, uint32_t data);

/* Clear the function mask: unmasked entries may now send. Caller: d's driver. */
void pci_msix_unmask_function(const struct pci_dev *d, const struct pci_msix *m);

#endif
