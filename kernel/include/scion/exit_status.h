/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The codes the kernel ends a QEMU run with (arch_exit_emulator, arch/power.h):
 * the tests' verdict and a panic. On x86 (isa-debug-exit) QEMU exits with
 * (code << 1) | 1; a port with fewer ways out maps them (sparc64: a
 * success powers off, status 0; anything else is a failure, status 1).
 */
#ifndef SCION_EXIT_STATUS_H
#define SCION_EXIT_STATUS_H

#define EXIT_STATUS_PASSED 0x10	/* the in-kernel tests passed: x86 QEMU exits with 33 */
#define EXIT_STATUS_FAILED 0x11	/* some failed: 35 */
#define EXIT_STATUS_PANIC  0x12	/* a panic with panic=exit: 37 */

#endif
