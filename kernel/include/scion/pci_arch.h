/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The arch contract for PCI configuration space: what the portable PCI
 * scan (kernel/dev/pci.c) asks of a port, written once here. Each port's
 * arch/pci.h says how it reaches configuration space (x86: mechanism #1;
 * sun4u: Sabre's little-endian window), defines ARCH_PCI_CONFIG_SIZE and
 * provides, inline or out of line, arch_pci_bar_phys (the CPU physical
 * address of a PCI bus address) and arch_pci_dma_direct (whether DMA
 * addresses are physical ones); it includes this file first.
 */
#ifndef SCION_PCI_ARCH_H
#define SCION_PCI_ARCH_H

#include <stdint.h>
#include <stdbool.h>

/*
 * arch_pci_present - whether the machine's configuration mechanism answers
 *   (x86: mechanism #1's address register holds what was written).
 * Caller's context: boot or thread.
 */
bool arch_pci_present(void);

/*
 * arch_pci_config_read32/16/8 - read configuration space.
 * Arguments: bus (0-255), dev (0-31), fn (0-7); offset below
 *   ARCH_PCI_CONFIG_SIZE, aligned to the access size (the low bits are
 *   ignored otherwise).
 * Return value: the register in host order; all ones when no function
 *   answers.
 * Caller's context: any; never sleeps (a port that needs a lock takes it
 *   with interrupts masked).
 */
uint32_t arch_pci_config_read32(unsigned bus, unsigned dev, unsigned fn, unsigned offset);
uint16_t arch_pci_config_read16(unsigned bus, unsigned dev, unsigned fn, unsigned offset);
uint8_t arch_pci_config_read8(unsigned bus, unsigned dev, unsigned fn, unsigned offset);

/*
 * arch_pci_config_write32/16/8 - write configuration space.
 * Arguments and caller's context as for the reads.
 */
void arch_pci_config_write32(unsigned bus, unsigned dev, unsigned fn, unsigned offset,
			     uint32_t value);
void arch_pci_config_write16(unsigned bus, unsigned dev, unsigned fn, unsigned offset,
			     uint16_t value);
void arch_pci_config_write8(unsigned bus, unsigned dev, unsigned fn, unsigned offset,
			    uint8_t value);

#endif
