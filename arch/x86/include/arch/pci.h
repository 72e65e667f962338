/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * PCI configuration space on x86: configuration mechanism #1 (an address
 * written to I/O port 0xcf8, data through 0xcfc..0xcff), which reaches the
 * first 256 bytes of every function's configuration space. kernel/dev/pci.c
 * builds enumeration, BARs and capabilities on top of these accessors.
 *
 * Every access is one address write and one data access, done as a pair
 * under a lock private to arch/x86/pci.c, so accesses from several CPUs
 * never interleave.
 */
#ifndef ARCH_PCI_H
#define ARCH_PCI_H

#include <stdint.h>
#include <stdbool.h>
#include <scion/pci_arch.h>

/* Bytes of configuration space each function has through this mechanism. */
#define ARCH_PCI_CONFIG_SIZE 256

/*
 * arch_pci_bar_phys - the CPU physical address of a PCI bus address.
 * Overview: a BAR holds an address on the PCI bus; x86 decodes PCI memory
 *   space at the same physical addresses (and I/O space is reached by port
 *   instructions, never mapped), so the address is returned unchanged.
 * Arguments: io_space true for an I/O BAR, false for a memory BAR;
 *   bus_address the BAR's address plus an offset into it.
 * Return value: the physical address to map (mmio_map).
 * Caller's context: any.
 */
static inline uint64_t arch_pci_bar_phys(bool io_space, uint64_t bus_address)
{
	(void)io_space;
	return bus_address;
}

/*
 * arch_pci_dma_direct - whether a device's DMA address is the physical
 * address of the RAM it reaches. Overview: Scion enables no IOMMU on x86.
 * Return value: true. Caller's context: any.
 */
static inline bool arch_pci_dma_direct(void)
{
	return true;
}

#endif
