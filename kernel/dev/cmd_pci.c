// SPDX-License-Identifier: BSD-2-Clause
/*
 * The `pci` shell command: one line per PCI function found at boot, or
 * one function in detail (BARs, capabilities, driver). Reads the device
 * list, which never changes after boot, and configuration space.
 */
#include <scion/pci.h>
#include <scion/shell.h>
#include <scion/printk.h>
#include <scion/errno.h>

#define HEX_BASE       16
#define MAX_DEV_NUMBER (PCI_MAX_DEVICES - 1)
#define MAX_FN_NUMBER  (PCI_MAX_FUNCTIONS - 1)
#define MAX_BUS_NUMBER (PCI_MAX_BUSES - 1)
#define ADDRESS_PARTS  3	/* bus, device, function */
#define HEX_LETTER_BASE 10

static void print_summary(const struct pci_dev *d)
{
	printk("%02x:%02x.%x %04x:%04x class %02x.%02x %s\n", d->bus, d->dev, d->fn, d->vendor,
	       d->device, d->class_code, d->subclass, pci_device_name(d));
}

static const char *cap_name(uint8_t id)
{
	switch (id) {
	case PCI_CAP_POWER: return "power management";
	case PCI_CAP_MSI: return "MSI";
	case PCI_CAP_VENDOR: return "vendor";
	case PCI_CAP_EXPRESS: return "PCI Express";
	case PCI_CAP_MSIX: return "MSI-X";
	default: return "other";
	}
}

static void print_cap(const struct pci_dev *d, unsigned offset, uint8_t id, void *arg)
{
	(void)d;
	(void)arg;
	printk("  capability at 0x%02x: id 0x%02x (%s)\n", offset, id, cap_name(id));
}

static const char *const bar_kinds[] = {
	[PCI_BAR_NONE] = "none", [PCI_BAR_IO] = "io", [PCI_BAR_MEM32] = "mem32",
	[PCI_BAR_MEM64] = "mem64",
};

static void print_detail(const struct pci_dev *d)
{
	print_summary(d);
	printk("  subsystem %04x:%04x, revision %02x, prog-if %02x, header type %u, "
	       "interrupt pin %u line %u, driver %s\n", d->subsystem_vendor, d->subsystem_id,
	       d->revision, d->prog_if, d->header_type, d->irq_pin, d->irq_line,
	       d->claimed ? d->claimed : "none");
	for (unsigned i = 0; i < PCI_NUM_BARS; i++) {
		const struct pci_bar *b = &d->bars[i];
		if (b->kind == PCI_BAR_NONE)
			continue;
		printk("  BAR%u %s%s base 0x%llx size 0x%llx\n", i, bar_kinds[b->kind],
		       b->prefetchable ? " prefetchable" : "", (unsigned long long)b->base,
		       (unsigned long long)b->size);
	}
	pci_foreach_capability(d, print_cap, NULL);
}

/* Parse "BB:DD.F" (hexadecimal); false when malformed or out of range. */
static bool parse_address(const char *s, unsigned *bus, unsigned *dev, unsigned *fn)
{
	unsigned parts[ADDRESS_PARTS] = { 0, 0, 0 };
	const char separators[ADDRESS_PARTS] = { ':', '.', '\0' };
	const unsigned limits[ADDRESS_PARTS] = { MAX_BUS_NUMBER, MAX_DEV_NUMBER, MAX_FN_NUMBER };

	for (unsigned p = 0; p < ADDRESS_PARTS; p++) {
		unsigned digits = 0;
		for (; *s && *s != separators[p]; s++, digits++) {
			char c = *s;
			unsigned v;
			if (c >= '0' && c <= '9')
				v = (unsigned)(c - '0');
			else if (c >= 'a' && c <= 'f')
				v = (unsigned)(c - 'a' + HEX_LETTER_BASE);
			else if (c >= 'A' && c <= 'F')
				v = (unsigned)(c - 'A' + HEX_LETTER_BASE);
			else
				return false;
			parts[p] = parts[p] * HEX_BASE + v;
			if (parts[p] > limits[p])
				return false;
		}
		if (!digits || *s != separators[p])
			return false;
		if (*s)
			s++;
	}
	*bus = parts[0];
	*dev = parts[1];
	*fn = parts[2];
	return true;
}

static int cmd_pci(int argc, char **argv)
{
	if (argc > 2) {
		printk("pci: usage: pci [BB:DD.F]\n");
		return -EINVAL;
	}
	if (argc == 1) {
		unsigned n = 0;
		for (const struct pci_dev *d = pci_first(); d; d = d->next, n++)
			print_summary(d);
		if (!n)
			printk("pci: no PCI devices\n");
		return 0;
	}
	unsigned bus, dev, fn;
	if (!parse_address(argv[1], &bus, &dev, &fn)) {
		printk("pci: '%s' is not a PCI address like 00:02.0\n", argv[1]);
		return -EINVAL;
	}
	for (const struct pci_dev *d = pci_first(); d; d = d->next) {
		if (d->bus == bus && d->dev == dev && d->fn == fn) {
			print_detail(d);
			return 0;
		}
	}
	printk("pci: no device at %02x:%02x.%x\n", bus, dev, fn);
	return -ENOENT;
}
SHELL_COMMAND(pci, "[BB:DD.F]", "list PCI devices, or show one in detail", cmd_pci);
