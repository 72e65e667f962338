/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * PCI configuration space on sparc64: sun4u's sabre host bridge, the
 * little-endian configuration window reached through ASI 0x1d
 * (arch/sparc64/pci.c). Same contract as arch/x86/include/arch/pci.h.
 * Values are in host order: the little-endian ASI does the swapping.
 */
#ifndef ARCH_PCI_H
#define ARCH_PCI_H

#include <stdint.h>
#include <stdbool.h>

#define ARCH_PCI_CONFIG_SIZE 256

bool arch_pci_present(void);
uint32_t arch_pci_config_read32(unsigned bus, unsigned dev, unsigned fn, unsigned offset);
uint16_t arch_pci_config_read16(unsigned bus, unsigned dev, unsigned fn, unsigned offset);
uint8_t arch_pci_config_read8(unsigned bus, unsigned dev, unsigned fn, unsigned offset);
void arch_pci_config_write32(unsigned bus, unsigned dev, unsigned fn, unsigned offset,
			     uint32_t value);
void arch_pci_config_write16(unsigned bus, unsigned dev, unsigned fn, unsigned offset,
			     uint16_t value);
void arch_pci_config_write8(unsigned bus, unsigned dev, unsigned fn, unsigned offset,
			    uint8_t value);

#endif
