// SPDX-License-Identifier: BSD-2-Clause
/*
 * Short names for PCI functions (pci_device_name): the devices QEMU's pc
 * machine and virtio provide by vendor and device id, anything else by
 * its class code. Tables only; no state.
 */
#include <scion/pci.h>
#include "virtio.h"

#define INTEL_VENDOR   0x8086
#define BOCHS_VENDOR   0x1234
#define VIRTIO_TRANSITIONAL_FIRST 0x1000
#define VIRTIO_TRANSITIONAL_LAST  0x103f
#define VIRTIO_MODERN_LAST        0x107f

struct known_device {
	uint16_t vendor, device;
	const char *name;
};

static const struct known_device known_devices[] = {
	{ INTEL_VENDOR, 0x1237, "i440FX host bridge" },
	{ INTEL_VENDOR, 0x7000, "PIIX3 ISA bridge" },
	{ INTEL_VENDOR, 0x7010, "PIIX3 IDE" },
	{ INTEL_VENDOR, 0x7113, "PIIX4 ACPI" },
	{ INTEL_VENDOR, 0x100e, "e1000" },
	{ INTEL_VENDOR, 0x29c0, "Q35 host bridge" },
	{ INTEL_VENDOR, 0x2918, "ICH9 LPC bridge" },
	{ INTEL_VENDOR, 0x2922, "ICH9 AHCI" },
	{ INTEL_VENDOR, 0x2930, "ICH9 SMBus" },
	{ BOCHS_VENDOR, 0x1111, "bochs VGA" },
};

/* Transitional virtio device ids 0x1000.. in order (virtio 1.0, 4.1.2.1). */
static const char *const virtio_transitional[] = {
	"virtio-net", "virtio-blk", "virtio-balloon", "virtio-console", "virtio-scsi",
	"virtio-rng", NULL, NULL, NULL, "virtio-9p",
};

static const char *virtio_modern_name(unsigned type)
{
	switch (type) {
	case VIRTIO_TYPE_NET: return "virtio-net";
	case VIRTIO_TYPE_BLOCK: return "virtio-blk";
	case VIRTIO_TYPE_CONSOLE: return "virtio-console";
	case VIRTIO_TYPE_RNG: return "virtio-rng";
	case VIRTIO_TYPE_BALLOON: return "virtio-balloon";
	case VIRTIO_TYPE_SCSI: return "virtio-scsi";
	case VIRTIO_TYPE_9P: return "virtio-9p";
	case VIRTIO_TYPE_GPU: return "virtio-gpu";
	case VIRTIO_TYPE_INPUT: return "virtio-input";
	case VIRTIO_TYPE_VSOCK: return "virtio-vsock";
	default: return "virtio device";
	}
}

/* PCI base class codes. */
static const char *const class_names[] = {
	"unclassified", "mass storage", "network", "display", "multimedia", "memory",
	"bridge", "communication", "system peripheral", "input", "docking station",
	"processor", "serial bus", "wireless", "intelligent I/O", "satellite",
	"encryption", "signal processing",
};

const char *pci_device_name(const struct pci_dev *d)
{
	for (unsigned i = 0; i < ARRAY_SIZE(known_devices); i++)
		if (known_devices[i].vendor == d->vendor && known_devices[i].device == d->device)
			return known_devices[i].name;
	if (d->vendor == VIRTIO_PCI_VENDOR) {
		if (d->device >= VIRTIO_TRANSITIONAL_FIRST && d->device <= VIRTIO_TRANSITIONAL_LAST) {
			unsigned i = d->device - VIRTIO_TRANSITIONAL_FIRST;
			if (i < ARRAY_SIZE(virtio_transitional) && virtio_transitional[i])
				return virtio_transitional[i];
			return "virtio device";
		}
		if (d->device >= VIRTIO_PCI_MODERN_BASE && d->device <= VIRTIO_MODERN_LAST)
			return virtio_modern_name(d->device - VIRTIO_PCI_MODERN_BASE);
	}
	if (d->class_code < ARRAY_SIZE(class_names))
		return class_names[d->class_code];
	return "unknown class";
}
