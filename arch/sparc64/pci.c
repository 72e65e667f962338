// SPDX-License-Identifier: BSD-2-Clause
/*
 * PCI configuration space on sun4u's host bridge (Sabre in QEMU): a
 * window at physical 0x1fe01000000 where function (bus, device, fn)
 * register r sits at offset bus << 16 | device << 11 | fn << 8 | r.
 * PCI is little-endian: the accesses use ASI 0x1d (physical, uncached,
 * little-endian), so values come back in the CPU's order.
 * Used by power.c (the pvpanic device) and, through arch/pci.h, by the
 * portable PCI scan (kernel/dev/pci.c), which also asks here where a BAR's
 * bus address lies in physical memory and whether DMA bypasses the IOMMU.
 */
#include <arch/pci.h>

#include "sparc64_internal.h"

#define PCI_CFG_BASE 0x1fe01000000ull
/* Where Sabre decodes the PCI bus's I/O space (QEMU's sabre.c, `info mtree`); memory
 * space: PCI_MEM_BASE (sparc64_internal.h). */
#define PCI_IO_SPACE_BASE  0x1fe02000000ull
/* The IOMMU control register (big-endian, 64 bits) and its enable bit (QEMU's sun4u_iommu.c). */
#define IOMMU_CONTROL_REG  0x1fe00000200ull
#define IOMMU_CONTROL_ENABLE 0x1ull

static uint64_t cfg_addr(unsigned bus, unsigned dev, unsigned fn, unsigned reg)
{
	return PCI_CFG_BASE | (uint64_t)bus << 16 | (uint64_t)dev << 11 | (uint64_t)fn << 8 | reg;
}

uint32_t pci_cfg_read32(unsigned bus, unsigned dev, unsigned fn, unsigned reg)
{
	return phys_in32_le(cfg_addr(bus, dev, fn, reg & ~3u));
}

void pci_cfg_write32(unsigned bus, unsigned dev, unsigned fn, unsigned reg, uint32_t v)
{
	phys_out32_le(cfg_addr(bus, dev, fn, reg & ~3u), v);
}

uint16_t pci_cfg_read16(unsigned bus, unsigned dev, unsigned fn, unsigned reg)
{
	return phys_in16_le(cfg_addr(bus, dev, fn, reg & ~1u));
}

void pci_cfg_write16(unsigned bus, unsigned dev, unsigned fn, unsigned reg, uint16_t v)
{
	phys_out16_le(cfg_addr(bus, dev, fn, reg & ~1u), v);
}

uint64_t arch_pci_bar_phys(bool io_space, uint64_t bus_address)
{
	return (io_space ? PCI_IO_SPACE_BASE : PCI_MEM_BASE) + bus_address;
}

bool arch_pci_dma_direct(void)
{
	return !(phys_in64(IOMMU_CONTROL_REG) & IOMMU_CONTROL_ENABLE);
}

/* ---- arch/pci.h: the portable PCI code's view (kernel/dev/pci.c) --------------- */

bool arch_pci_present(void)
{
	return true;
}

uint32_t arch_pci_config_read32(unsigned bus, unsigned dev, unsigned fn, unsigned offset)
{
	return pci_cfg_read32(bus, dev, fn, offset);
}

uint16_t arch_pci_config_read16(unsigned bus, unsigned dev, unsigned fn, unsigned offset)
{
	return pci_cfg_read16(bus, dev, fn, offset);
}

/* A byte of the little-endian dword: byte k is bits 8k..8k+7 (the ASI swapped it). */
uint8_t arch_pci_config_read8(unsigned bus, unsigned dev, unsigned fn, unsigned offset)
{
	return (uint8_t)(pci_cfg_read32(bus, dev, fn, offset) >> ((offset & 3) * 8));
}

void arch_pci_config_write32(unsigned bus, unsigned dev, unsigned fn, unsigned offset,
			     uint32_t value)
{
	pci_cfg_write32(bus, dev, fn, offset, value);
}

void arch_pci_config_write16(unsigned bus, unsigned dev, unsigned fn, unsigned offset,
			     uint16_t value)
{
	pci_cfg_write16(bus, dev, fn, offset, value);
}

void arch_pci_config_write8(unsigned bus, unsigned dev, unsigned fn, unsigned offset,
			    uint8_t value)
{
	unsigned shift = (offset & 3) * 8;
	uint32_t v = pci_cfg_read32(bus, dev, fn, offset);

	v = (v & ~(0xffu << shift)) | (uint32_t)value << shift;
	pci_cfg_write32(bus, dev, fn, offset, v);
}
