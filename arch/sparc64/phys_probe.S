/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * int sparc64_phys_probe8(uint64_t pa): the byte at physical address pa
 * (ASI 0x15, as serial.c's device accesses), or -1 when nothing answers
 * there: sun4u's EBus raises a data access error (tt 0x032) for an I/O
 * port no device decodes, and the trap handler resumes a fault at
 * phys_probe_load at phys_probe_fault (trap.c: sparc64_phys_probe_fixup)
 * without a report. A leaf (no window). Used to ask whether QEMU was
 * given a second serial port (arch/sparc64/channel.c). In .text.noprobe:
 * the fixup knows the load by its address, which a probe would move.
 */
	.section .text.noprobe, "ax"
	.globl	sparc64_phys_probe8
	.type	sparc64_phys_probe8, @function
sparc64_phys_probe8:
	.globl	phys_probe_load
phys_probe_load:
	lduba	[%o0] 0x15, %o1
	retl
	 mov	%o1, %o0
	.globl	phys_probe_fault
phys_probe_fault:
	retl
	 mov	-1, %o0
	.size	sparc64_phys_probe8, . - sparc64_phys_probe8

	.section .note.GNU-stack, "", @progbits
