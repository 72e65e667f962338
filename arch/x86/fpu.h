/* SPDX-License-Identifier: BSD-2-Clause */
/* The legacy FXSAVE area: a user thread's x87 and SSE registers (user.c, context.c). */
#ifndef X86_FPU_H
#define X86_FPU_H

#include <stdint.h>

struct fpu_state {
	uint16_t fcw, fsw;
	uint8_t ftw, reserved0;
	uint16_t fop;
	uint64_t fip, fdp;
	uint32_t mxcsr, mxcsr_mask;
	uint8_t regs[512 - 32];
} __attribute__((aligned(16)));

_Static_assert(sizeof(struct fpu_state) == 512, "fxsave's area is 512 bytes");

/* The MXCSR bits this CPU accepts (fxrstor faults on any other). */
uint32_t fpu_mxcsr_mask(void);

/* Load the calling user thread's saved FPU registers and TLS into the CPU. */
void fpu_load_current(void);

#endif
