// SPDX-License-Identifier: BSD-2-Clause
/*
 * The DIF compiler's machine half (scion/dif_jit.h) on sparc64: there
 * is none yet, so every program runs in the interpreter (kernel/trace/
 * dif_exec.c), which is the reference on every machine. The x86-64
 * compiler (arch/x86/dif_jit.c) shows the shape one would take here:
 * DIF registers kept in the run state, the interpreter's own code called
 * for every instruction that can fault.
 */
#include <scion/dif_jit.h>

size_t arch_dif_jit_emit(const struct dif_prog *p, const struct dif_jit_abi *abi, uint8_t *code,
			 size_t cap, uint32_t *at)
{
	(void)p;
	(void)abi;
	(void)code;
	(void)cap;
	(void)at;
	return 0;
}
