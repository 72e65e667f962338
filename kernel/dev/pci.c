// SPDX-License-Identifier: BSD-2-Clause
/*
 * PCI enumeration (scion/pci.h): every function on bus 0 and on the buses
 * behind PCI-to-PCI bridges, with their identity and their BARs.
 *
 * Buses are scanned from a work list (bus 0 first, then each bridge's
 * secondary bus the first time it is seen), so a misconfigured bridge
 * that points back at a scanned bus cannot loop. BARs are sized with the
 * function's I/O and memory decoding switched off, then restored.
 *
 * The device list is written only by pci_init (boot, one thread) and read
 * without a lock afterwards.
 */
#include <scion/pci.h>
#include <scion/mm.h>
#include <scion/printk.h>
#include <scion/errno.h>
#include <arch/pci.h>

#define BAR_IO_FLAG          0x1u
#define BAR_IO_ADDRESS_MASK  0xfffffffcu
#define BAR_MEM_ADDRESS_MASK 0xfffffff0u
#define BAR_MEM_TYPE_MASK    0x6u
#define BAR_MEM_TYPE_64      0x4u
#define BAR_MEM_PREFETCHABLE 0x8u
#define BAR_IO_UPPER_HALF    0xffff0000u	/* may read back 0 on 16-bit I/O decoders */
#define BAR_SIZING_PATTERN   0xffffffffu
#define BRIDGE_NUM_BARS      2	/* a type 1 header has two BARs */

static struct pci_dev *devices;		/* set once by pci_init: enumeration order */

uint32_t pci_read32(const struct pci_dev *d, unsigned offset)
{
	return arch_pci_config_read32(d->bus, d->dev, d->fn, offset);
}

uint16_t pci_read16(const struct pci_dev *d, unsigned offset)
{
	return arch_pci_config_read16(d->bus, d->dev, d->fn, offset);
}

uint8_t pci_read8(const struct pci_dev *d, unsigned offset)
{
	return arch_pci_config_read8(d->bus, d->dev, d->fn, offset);
}

void pci_write32(const struct pci_dev *d, unsigned offset, uint32_t value)
{
	arch_pci_config_write32(d->bus, d->dev, d->fn, offset, value);
}

void pci_write16(const struct pci_dev *d, unsigned offset, uint16_t value)
{
	arch_pci_config_write16(d->bus, d->dev, d->fn, offset, value);
}

void pci_write8(const struct pci_dev *d, unsigned offset, uint8_t value)
{
	arch_pci_config_write8(d->bus, d->dev, d->fn, offset, value);
}

void pci_enable(const struct pci_dev *d, uint16_t command_bits)
{
	pci_write16(d, PCI_COMMAND, pci_read16(d, PCI_COMMAND) | command_bits);
}

struct pci_dev *pci_first(void)
{
	return devices;
}

struct pci_dev *pci_find(uint16_t vendor, uint16_t device, struct pci_dev *from)
{
	for (struct pci_dev *d = from ? from->next : devices; d; d = d->next)
		if (d->vendor == vendor && d->device == device)
			return d;
	return NULL;
}

/* Write the sizing pattern to a BAR register; return what reads back, restoring it. */
static uint32_t probe_bar_register(const struct pci_dev *d, unsigned offset, uint32_t *original)
{
	*original = pci_read32(d, offset);
	pci_write32(d, offset, BAR_SIZING_PATTERN);
	uint32_t mask = pci_read32(d, offset);
	pci_write32(d, offset, *original);
	return mask;
}

/* Read BAR index i; return how many BAR registers it used (2 for a 64-bit BAR). */
static unsigned read_bar(struct pci_dev *d, unsigned i, unsigned nbars)
{
	unsigned offset = PCI_BAR0 + PCI_BAR_STRIDE * i;
	struct pci_bar *bar = &d->bars[i];
	uint32_t low, low_mask = probe_bar_register(d, offset, &low);

	if (low_mask == 0)
		return 1;	/* unimplemented */
	if (low & BAR_IO_FLAG) {
		uint32_t mask = low_mask & BAR_IO_ADDRESS_MASK;
		if (!(mask & BAR_IO_UPPER_HALF))
			mask |= BAR_IO_UPPER_HALF;
		bar->kind = PCI_BAR_IO;
		bar->base = low & BAR_IO_ADDRESS_MASK;
		bar->size = (uint32_t)(~mask + 1);
		return 1;
	}
	bar->prefetchable = (low & BAR_MEM_PREFETCHABLE) != 0;
	if ((low & BAR_MEM_TYPE_MASK) == BAR_MEM_TYPE_64 && i + 1 < nbars) {
		uint32_t high, high_mask = probe_bar_register(d, offset + PCI_BAR_STRIDE, &high);
		uint64_t mask = (uint64_t)high_mask << 32 | (low_mask & BAR_MEM_ADDRESS_MASK);
		bar->kind = PCI_BAR_MEM64;
		bar->base = (uint64_t)high << 32 | (low & BAR_MEM_ADDRESS_MASK);
		bar->size = ~mask + 1;
		return 2;
	}
	bar->kind = PCI_BAR_MEM32;
	bar->base = low & BAR_MEM_ADDRESS_MASK;
	bar->size = (uint32_t)(~(low_mask & BAR_MEM_ADDRESS_MASK) + 1);
	return 1;
}

static void read_bars(struct pci_dev *d)
{
	unsigned nbars;

	if (d->header_type == PCI_HEADER_TYPE_NORMAL)
		nbars = PCI_NUM_BARS;
	else if (d->header_type == PCI_HEADER_TYPE_BRIDGE)
		nbars = BRIDGE_NUM_BARS;
	else
		return;
	uint16_t command = pci_read16(d, PCI_COMMAND);
	pci_write16(d, PCI_COMMAND, command & ~(PCI_COMMAND_IO | PCI_COMMAND_MEMORY));
	for (unsigned i = 0; i < nbars;)
		i += read_bar(d, i, nbars);
	pci_write16(d, PCI_COMMAND, command);
}

/* Record the function at bus:dev.fn; return it, or NULL when out of memory. */
static struct pci_dev *add_function(unsigned bus, unsigned dev, unsigned fn,
				    struct pci_dev ***tail)
{
	struct pci_dev *d = kzalloc(sizeof(*d));
	if (!d)
		return NULL;
	d->bus = (uint8_t)bus;
	d->dev = (uint8_t)dev;
	d->fn = (uint8_t)fn;
	d->vendor = pci_read16(d, PCI_VENDOR_ID);
	d->device = pci_read16(d, PCI_DEVICE_ID);
	d->revision = pci_read8(d, PCI_REVISION);
	d->prog_if = pci_read8(d, PCI_PROG_IF);
	d->subclass = pci_read8(d, PCI_SUBCLASS);
	d->class_code = pci_read8(d, PCI_CLASS);
	d->header_type = pci_read8(d, PCI_HEADER_TYPE) & PCI_HEADER_TYPE_MASK;
	if (d->header_type == PCI_HEADER_TYPE_NORMAL) {
		d->subsystem_vendor = pci_read16(d, PCI_SUBSYSTEM_VENDOR);
		d->subsystem_id = pci_read16(d, PCI_SUBSYSTEM_ID);
	}
	d->irq_line = pci_read8(d, PCI_INTERRUPT_LINE);
	d->irq_pin = pci_read8(d, PCI_INTERRUPT_PIN);
	read_bars(d);
	**tail = d;
	*tail = &d->next;
	return d;
}

struct bus_worklist {
	uint8_t pending[PCI_MAX_BUSES];
	unsigned head, count;
	bool seen[PCI_MAX_BUSES];
};

static void queue_bus(struct bus_worklist *w, unsigned bus)
{
	if (bus >= PCI_MAX_BUSES || w->seen[bus])
		return;
	w->seen[bus] = true;
	w->pending[(w->head + w->count++) % PCI_MAX_BUSES] = (uint8_t)bus;
}

static bool scan_bus(unsigned bus, struct bus_worklist *w, struct pci_dev ***tail)
{
	for (unsigned dev = 0; dev < PCI_MAX_DEVICES; dev++) {
		if (arch_pci_config_read16(bus, dev, 0, PCI_VENDOR_ID) == PCI_VENDOR_NONE)
			continue;
		bool multi = arch_pci_config_read8(bus, dev, 0, PCI_HEADER_TYPE) &
			     PCI_HEADER_MULTIFUNCTION;
		for (unsigned fn = 0; fn < (multi ? PCI_MAX_FUNCTIONS : 1u); fn++) {
			if (arch_pci_config_read16(bus, dev, fn, PCI_VENDOR_ID) == PCI_VENDOR_NONE)
				continue;
			struct pci_dev *d = add_function(bus, dev, fn, tail);
			if (!d)
				return false;
			if (d->header_type == PCI_HEADER_TYPE_BRIDGE)
				queue_bus(w, pci_read8(d, PCI_SECONDARY_BUS));
		}
	}
	return true;
}

__init void pci_init(void)
{
	struct pci_dev **tail = &devices;
	static struct bus_worklist w __initdata;

	if (!arch_pci_present()) {
		printk("pci: no configuration space; no PCI devices\n");
		return;
	}
	queue_bus(&w, 0);
	while (w.count) {
		unsigned bus = w.pending[w.head];
		w.head = (w.head + 1) % PCI_MAX_BUSES;
		w.count--;
		if (!scan_bus(bus, &w, &tail)) {
			printk("pci: out of memory while scanning bus %u; later devices ignored\n", bus);
			return;
		}
	}
}

void *pci_map_bar(const struct pci_dev *d, unsigned bar, uint64_t offset, uint64_t length)
{
	if (bar >= PCI_NUM_BARS)
		return NULL;
	const struct pci_bar *b = &d->bars[bar];
	if (b->kind != PCI_BAR_MEM32 && b->kind != PCI_BAR_MEM64)
		return NULL;
	if (length == 0 || offset > b->size || length > b->size - offset)
		return NULL;
	return mmio_map(arch_pci_bar_phys(false, b->base + offset), length);
}
