/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Fault-tolerant reads of kernel memory for tracing (arch/x86/safe_read.S):
 * a D program may follow any pointer, so its loads go through here and
 * an address that does not read (unmapped, guard page, non-canonical)
 * comes back as an error instead of a fault that panics.
 */
#ifndef ARCH_SAFE_READ_H
#define ARCH_SAFE_READ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * arch_safe_read - copy n bytes from src to dst.
 * Arguments: dst, kernel memory that is writable for n bytes; src, any
 *   address.
 * Return value: 0, or -EFAULT when a byte of src could not be read
 *   (dst then holds the bytes read before it).
 * Caller's context: any, probe context included; never sleeps. The
 *   page fault or general protection fault it may take is turned into
 *   the error by the trap handler (arch_safe_read_fixup).
 */
int arch_safe_read(void *dst, uint64_t src, size_t n);

/*
 * arch_trace_readable - may tracing read this kernel address range?
 * Overview: a D program can name any address, and arch_safe_read only
 *   recovers from reads that fault. A read of device memory does not
 *   fault: it can clear a status register, pop a FIFO or stall the bus.
 *   Trace loads and string copies ask here first and treat a refusal as
 *   an address that does not read. Refused: the MMIO window, where every
 *   device mapping lives (local APIC, I/O APIC, PCI BARs, HPET if mapped),
 *   the legacy VGA/ROM hole (physical 0xA0000-0xFFFFF) in the direct map
 *   and the image alias, direct-map pages that are not RAM in the boot
 *   memory map, and any page mapped uncached. Addresses nothing maps are
 *   not refused here: arch_safe_read fails them without side effects.
 * Arguments: addr, any address; n, bytes from addr (0 is always fine).
 * Return value: true when the range may be read through arch_safe_read;
 *   false when any byte of it is device memory, or the range wraps.
 * Caller's context: any, probe context included; takes no lock, never
 *   sleeps, touches only the page tables and the boot memory map.
 */
bool arch_trace_readable(uint64_t addr, size_t n);

struct trap_frame;

/* The trap handler's side: true when f faulted inside arch_safe_read (now resumed). */
bool arch_safe_read_fixup(struct trap_frame *f);

#endif
