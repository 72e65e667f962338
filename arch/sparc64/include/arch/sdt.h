/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Static probe sites on sparc64 (see scion/sdt.h, which binds the
 * arguments): one `nop`, the size of the `ba,a` that replaces it when the
 * probe is enabled. Arguments go in %o0..%o5, where trap_frame_arg()
 * finds them.
 */
#ifndef ARCH_SDT_H
#define ARCH_SDT_H

#include <scion/compiler.h>

#define ARCH_SDT_SITE_LEN 4
#define ARCH_SDT_NOP "nop"
/* The assembler's 8-byte data directive, for the table entry. */
#define ARCH_SDT_XWORD ".xword"
#define ARCH_SDT_ARG_REGS "o0", "o1", "o2", "o3", "o4", "o5"

/*
 * arch_sdt_gate_open - Overview: whether a gated site's gate is open
 *   (scion/sdt.h); a load and a test, read each time the code passes.
 * Arguments: gate, the site's byte. Return value: nonzero: open.
 * Caller's context: any.
 */
static __always_inline bool arch_sdt_gate_open(const uint8_t *gate)
{
	return __atomic_load_n(gate, __ATOMIC_RELAXED) != 0;
}

#endif
