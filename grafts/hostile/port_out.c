// SPDX-License-Identifier: BSD-2-Clause
/* Hostile: port I/O (the ACPI power-off port QEMU listens on). */
#include "hostile.h"

HOSTILE_GRAFT("port-out",
	"movw $0x604, %dx\n"
	"movw $0x2000, %ax\n"
	"outw %ax, %dx\n"
	"xorl %eax, %eax\n"
	HOSTILE_RETURN);
