// SPDX-License-Identifier: BSD-2-Clause
/*
 * Giving a verified DIF program native code (scion/dif_jit.h): the
 * run state's layout for the machine's compiler, the two passes, and the
 * executable memory the environment provides. A program the compiler or
 * the memory cannot take stays interpreted, which is never an error.
 *
 * Native code is written once, before the program can run, and freed
 * only once nothing runs it (the caller frees a program after its
 * session's probes are disabled; the kernel's allocator also waits out
 * any CPU still inside).
 */
#include <scion/dif_jit.h>
#include "dif_internal.h"

/* V + 1 when p is `ldb rN, V; ret rN` (verified: rN is not r0), else 0. */
static uint16_t lone_builtin(const struct dif_prog *p)
{
	const struct dif_insn *in = p->insns;
	if (p->ninsns != 2 || in[0].op != DIF_OP_LDB || in[1].op != DIF_OP_RET ||
	    in[1].r1 != in[0].rd || in[0].imm < 0 || in[0].imm >= UINT16_MAX)
		return 0;
	return (uint16_t)(in[0].imm + 1);
}

int dif_jit_compile(struct dif_prog *p)
{
	const struct dif_jit_abi abi = {
		.regs = offsetof(struct run, r),
		.pc = offsetof(struct run, pc),
		.ops = offsetof(struct run, ops),
		.env = offsetof(struct run, env),
		.tuple = offsetof(struct run, tuple),
		.ntuple = offsetof(struct run, ntuple),
		.builtin = offsetof(struct dif_env_ops, builtin),
		.step = (uint64_t)(uintptr_t)dif_exec_insn,
	};
	_Static_assert(sizeof(((struct run *)0)->pc) == 4 && sizeof(((struct run *)0)->ntuple) == 4,
		       "native code writes pc and ntuple as 32-bit words");
	int rc = -1;
	uint32_t at[DIF_JIT_MAX_INSNS + 1];
	if (p->ninsns > DIF_JIT_MAX_INSNS)
		return -1;
	size_t len = arch_dif_jit_emit(p, &abi, NULL, 0, at);
	uint64_t runs;
	uint8_t *writable;
	void *mem = len ? dif_jit_code_alloc(len, &runs, &writable) : NULL;
	if (mem) {
		if (arch_dif_jit_emit(p, &abi, writable, len, at) == len) {
			p->native = (int (*)(void *, uint64_t *))(uintptr_t)runs;
			p->native_mem = mem;
			p->native_len = (uint32_t)len;
			p->lone_builtin = lone_builtin(p);
			rc = 0;
		} else {
			dif_jit_code_free(mem);
		}
	}
	return rc;
}

void dif_jit_release(struct dif_prog *p)
{
	if (p->native_mem)
		dif_jit_code_free(p->native_mem);
	p->native = NULL;
	p->native_mem = NULL;
	p->native_len = 0;
	p->lone_builtin = 0;
}
