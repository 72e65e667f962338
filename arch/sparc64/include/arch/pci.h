/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * PCI configuration space on sparc64: sun4u's sabre host bridge, the
 * little-endian configuration window reached through ASI 0x1d
 * (arch/sparc64/pci.c); the accessors' contract is scion/pci_arch.h.
 * Values are in host order: the little-endian ASI does the swapping.
 */
#ifndef ARCH_PCI_H
#define ARCH_PCI_H

#include <stdint.h>
#include <stdbool.h>
#include <scion/pci_arch.h>

#define ARCH_PCI_CONFIG_SIZE 256

/*
 * arch_pci_bar_phys - the CPU physical address of a PCI bus address.
 * Overview: Sabre decodes PCI memory space at physical 0x1ff00000000 and
 *   PCI I/O space at 0x1fe02000000 (QEMU's sabre.c; checked
 *   with `info mtree`): a BAR's bus address is an offset into one of them.
 * Arguments: io_space true for an I/O BAR, false for a memory BAR;
 *   bus_address the BAR's address plus an offset into it.
 * Return value: the physical address to map (mmio_map, MAP_NOCACHE: the
 *   little-endian TTE makes the registers read as on x86).
 * Caller's context: any.
 */
uint64_t arch_pci_bar_phys(bool io_space, uint64_t bus_address);

/*
 * arch_pci_dma_direct - whether a device's DMA address is the physical
 * address of the RAM it reaches (no IOMMU translation in the way).
 * Overview: Sabre's IOMMU passes DMA through while its control register's
 *   enable bit is clear, as OpenBIOS leaves it; this checks that bit.
 * Return value: true when DMA addresses equal physical addresses.
 * Caller's context: any.
 */
bool arch_pci_dma_direct(void);

#endif
