/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Fault-tolerant reads of kernel memory for tracing (arch/x86/safe_read.S):
 * a D program may follow any pointer, so its loads go through here and
 * an address that does not read (unmapped, guard page, non-canonical)
 * comes back as an error instead of a fault that panics.
 */
#ifndef ARCH_SAFE_READ_H
#define ARCH_SAFE_READ_H

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

struct trap_frame;

/* The trap handler's side: true when f faulted inside arch_safe_read (now resumed). */
bool arch_safe_read_fixup(struct trap_frame *f);

#endif
