// SPDX-License-Identifier: BSD-2-Clause
/*
 * Power off through ACPI (S5 via PM1 control), and QEMU's isa-debug-exit
 * device at port 0xf4 for test runs that must report a status.
 */
#include <arch/power.h>
#include <arch/timer.h>
#include <arch/x86.h>
#include <scion/printk.h>
#include "x86_internal.h"

#define PM1_SLP_EN          (1u << 13)
#define PM1_SLP_TYP_SHIFT   10
#define DEBUG_EXIT_PORT     0xf4

void arch_poweroff(void)
{
	if (!acpi.pm1a_cnt || !acpi.have_s5) {
		printk("poweroff: the firmware describes no ACPI power-off (PM1a %s, \\_S5 %s)\n",
		       acpi.pm1a_cnt ? "present" : "missing", acpi.have_s5 ? "present" : "missing");
		return;
	}
	outw((uint16_t)acpi.pm1a_cnt, (uint16_t)(acpi.s5_typa << PM1_SLP_TYP_SHIFT | PM1_SLP_EN));
	if (acpi.pm1b_cnt)
		outw((uint16_t)acpi.pm1b_cnt,
		     (uint16_t)(acpi.s5_typb << PM1_SLP_TYP_SHIFT | PM1_SLP_EN));
	arch_udelay(100000);
	printk("poweroff: the machine is still running after ACPI S5\n");
}

void arch_exit_emulator(uint8_t code)
{
	outl(DEBUG_EXIT_PORT, code);
}
