/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Fault-tolerant reads of kernel memory on sparc64 (arch_safe_read in arch/sparc64/switch.S):
 * a copy loop whose faults (an MMU miss nothing maps, a data access
 * exception) the trap handler turns into -EFAULT by resuming at the
 * copy's error exit. Same contract as arch/x86/include/arch/safe_read.h.
 */
#ifndef ARCH_SAFE_READ_H
#define ARCH_SAFE_READ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Copy n bytes from src to dst: 0, or -EFAULT when a byte of src did not read. */
int arch_safe_read(void *dst, uint64_t src, size_t n);

/*
 * May tracing read [addr, addr + n)? Refused: the MMIO part of the kmap
 * window and uncached mappings (device registers), and ranges that wrap.
 */
bool arch_trace_readable(uint64_t addr, size_t n);

struct trap_frame;

/* The trap handler's side: true when f faulted inside arch_safe_read (now resumed). */
bool arch_safe_read_fixup(struct trap_frame *f);

#endif
