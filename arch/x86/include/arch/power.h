/* SPDX-License-Identifier: BSD-2-Clause */
/* Leaving the machine: power off, and exit with a status under QEMU. */
#ifndef ARCH_POWER_H
#define ARCH_POWER_H

#include <stdint.h>

/*
 * arch_poweroff - turn the machine off through ACPI S5 (QEMU then exits
 * with status 0).
 * Return value: none; it returns only if the firmware's power-off did not
 *   work, after printing why.
 * Caller's context: thread; no locks; may spin for up to 100 ms.
 */
void arch_poweroff(void);

/*
 * arch_exit_emulator - end a QEMU run with a status a test harness reads.
 * Arguments: code; QEMU exits with (code << 1) | 1 (isa-debug-exit).
 * Return value: none; returns only when the exit device is absent.
 * Caller's context: any, including panic.
 */
void arch_exit_emulator(uint8_t code);

#endif
