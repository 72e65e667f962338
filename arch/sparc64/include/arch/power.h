/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Ending the machine on sparc64 (arch/sparc64/power.c). Same contract as
 * arch/x86/include/arch/power.h, with sun4u's two ways out: the power
 * register (QEMU exits 0) and pvpanic-pci (QEMU exits 1 under
 * `-action panic=exit-failure`). So the emulator's exit status carries
 * only success or failure here, not x86's distinct odd codes.
 */
#ifndef ARCH_POWER_H
#define ARCH_POWER_H

#include <stdint.h>

/* Power the machine off: QEMU exits 0. Returns only if that failed. */
void arch_poweroff(void);

/*
 * End QEMU: code 0 and EXIT_STATUS_PASSED (scion/exit_status.h) power off
 * (status 0); any other code signals a panic through pvpanic (status 1).
 * Returns only when neither device answered.
 */
void arch_exit_emulator(uint8_t code);

#endif
