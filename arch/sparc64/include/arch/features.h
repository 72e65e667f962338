/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The machine features of the sparc64 port (scion/features.h), and one
 * line for each it lacks (issue 25 tracks them all).
 */
#ifndef ARCH_FEATURES_H
#define ARCH_FEATURES_H

/* The control channel (the second EBus UART, polled: arch/sparc64/channel.c);
 * probes (KernInst's splice: arch/sparc64/splice.c). */
#define ARCH_FEATURES ((unsigned)(FEATURE_CHANNEL | FEATURE_PROBES))

static inline const char *arch_feature_absent_reason(unsigned feature)
{
	switch (feature) {
	case FEATURE_PROCESSES:
		return "sparc64: no user processes yet: they speak the Linux x86-64 ABI (issue 25)";
	case FEATURE_SANDBOX:
		return "sparc64: the x86 SFI sandbox has no SPARC counterpart yet (issue 25): "
		       "load the graft trusted";
	case FEATURE_DEVICE_IRQS:
		/* Sabre's QEMU devices carry no MSI-X: virtio-blk is polled (kernel/dev/virtio_blk.c). */
		return "sparc64: no device interrupts yet (issue 25)";
	case FEATURE_PAGE_PERMISSIONS:
		return "sparc64: the image is one writable 4 MB TTE, no per-page permissions (issue 25)";
	case FEATURE_MMIO_DEVICES:
		/* PCI BARs are mapped there (virtio-blk), but no interrupt controller or
		 * local APIC page, which the device-memory tests read. */
		return "sparc64: no local APIC or interrupt controller page: nothing is mapped in "
		       "the MMIO window but PCI BARs (issue 25)";
	}
	return "sparc64: not available";
}

#endif
