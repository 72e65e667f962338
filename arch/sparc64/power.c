// SPDX-License-Identifier: BSD-2-Clause
/*
 * Stopping the machine (arch/power.h, and the self-checks' power_off).
 * arch_poweroff: a 32-bit store of 0x01000000 to the power register at
 * physical 0x1fe02007240 (ASI 0x15); QEMU exits 0. arch_exit_emulator:
 * 0 and EXIT_STATUS_PASSED (the in-kernel tests passed) power off; any
 * other code (tests failed, the core's panic with `panic=exit`): tell QEMU
 * through the pvpanic PCI device (-device pvpanic-pci -action
 * panic=exit-failure: QEMU exits 1). The device (1b36:0011) is looked for on
 * the PCI buses at boot (power_init), while nothing is failing yet;
 * OpenBIOS has assigned its BAR 0 (2 bytes of PCI memory space, whose
 * byte 0 takes the event bits: 1 = panicked); power_init aligns it.
 * Invariant: both work at any point after serial_init, with any MMU
 * state (physical accesses only).
 */
#include <arch/power.h>
#include <scion/exit_status.h>

#include "sparc64_internal.h"

#define POWER_REG	0x1fe02007240ull
#define POWER_OFF_BIT	0x01000000u
#define PVPANIC_ID	0x00111b36u	/* device 0x0011, vendor 0x1b36 (Red Hat) */
#define PVPANIC_PANICKED 1
#define PCI_COMMAND_MEMORY 0x2

static uint64_t pvpanic_pa;

/*
 * power_init - find pvpanic-pci.
 * Steps: 1. scan buses 0..3, every device and function, for 1b36:0011;
 * 2. read BAR 0 (a 32-bit memory BAR); 3. make sure memory decoding is
 * on; 4. keep the physical address of its event register.
 */
void power_init(void)
{
	for (unsigned bus = 0; bus < 4; bus++) {
		for (unsigned dev = 0; dev < 32; dev++) {
			for (unsigned fn = 0; fn < 8; fn++) {
				uint32_t id = pci_cfg_read32(bus, dev, fn, 0);
				if (id == 0xffffffffu || id == 0)
					continue;
				if (id != PVPANIC_ID)
					continue;
				/* OpenBIOS leaves BAR 0 (2 bytes wide) at an odd
				 * offset (…0e) that the flag bits hide: move it to
				 * the 16-byte aligned start, inside the same window. */
				uint32_t bar = pci_cfg_read32(bus, dev, fn, 0x10) & ~0xfu;
				pci_cfg_write32(bus, dev, fn, 0x10, bar);
				uint16_t cmd = pci_cfg_read16(bus, dev, fn, 0x04);
				if (!(cmd & PCI_COMMAND_MEMORY))
					pci_cfg_write16(bus, dev, fn, 0x04, cmd | PCI_COMMAND_MEMORY);
				pvpanic_pa = PCI_MEM_BASE + bar;
				early_printf("power: pvpanic at %02x:%02x.%u, BAR 0 0x%x: a panic "
					     "ends QEMU with a failure status\n", bus, dev, fn, bar);
				return;
			}
		}
	}
	early_printf("power: no pvpanic device: a panic halts the machine\n");
}

void arch_poweroff(void)
{
	phys_out32(POWER_REG, POWER_OFF_BIT);
}

void arch_exit_emulator(uint8_t code)
{
	if (code == 0 || code == EXIT_STATUS_PASSED)
		arch_poweroff();
	else if (pvpanic_pa)
		phys_out8(pvpanic_pa, PVPANIC_PANICKED);
}

__noreturn void power_off(void)
{
	early_printf("power: powering off\n");
	arch_poweroff();
	for (;;)
		;
}
