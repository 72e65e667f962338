/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Compiling verified DIF programs to native code (kernel/trace/dif_jit.c,
 * with the machine's half in arch/<arch>/dif_jit.c). The interpreter
 * (dif_exec.c) stays the reference: native code runs the instructions
 * that cannot fault itself (arithmetic, comparisons, branches, constants,
 * built-in variables, tuple pushes that fit) and hands every other one
 * (loads, stores, variables, subroutines, division, string compares) to
 * the interpreter's own code for that one instruction, so a fault is the
 * interpreter's fault, at the same pc, with the same address. A program
 * compiles only after dif_verify accepted it, and the compiler emits
 * nothing it did not check: every branch target is an instruction of the
 * program, forward.
 *
 * dif_run uses a program's native code when it has one (p->native);
 * `scion trace -x nojit` (DOF_OPT_NOJIT) keeps a session interpreted.
 */
#ifndef SCION_DIF_JIT_H
#define SCION_DIF_JIT_H

#include <scion/dif.h>

/*
 * The longest program compiled (its instruction offsets live on the
 * compiling thread's stack); a longer one runs interpreted. D's
 * predicates and actions are a few to a few dozen instructions.
 */
#define DIF_JIT_MAX_INSNS 256

/*
 * What native code may rely on: where the run state keeps what it reads
 * and writes (byte offsets from the state's address, which native code
 * receives as its first argument), and the addresses it calls.
 */
struct dif_jit_abi {
	uint32_t regs;		/* uint64_t r[DIF_NREGS]: native code clears those it names */
	uint32_t pc;		/* uint32_t: the instruction the interpreter runs next */
	uint32_t ops;		/* const struct dif_env_ops * */
	uint32_t env;		/* void * */
	uint32_t tuple;		/* struct dif_tuple_item[DIF_MAX_TUPLE] */
	uint32_t ntuple;	/* unsigned */
	uint32_t builtin;	/* offsetof(struct dif_env_ops, builtin) */
	/* int step(run): the interpreter runs instruction run->pc; 0 or -1 (fault) */
	uint64_t step;
};

/* Native code: 0 with *result set by RET, or -1 after a fault (the run's fault filled). */
typedef int (*dif_native_fn)(void *run, uint64_t *result);

/*
 * arch_dif_jit_emit - the machine's compiler: p's native code.
 * Arguments: p, a program dif_verify accepted; abi; code and cap, where
 *   the bytes go (code NULL: only count them); at, room for p->ninsns + 1
 *   offsets (where each instruction's code starts: filled as it goes).
 *   The code is position-independent: it may be copied anywhere.
 * Return value: the bytes the code takes, or 0 when the machine has no
 *   compiler or the program holds what it does not compile (a
 *   program that does not end in RET); with code, more than cap bytes
 *   means nothing usable was written.
 * Caller's context: any; pure.
 */
size_t arch_dif_jit_emit(const struct dif_prog *p, const struct dif_jit_abi *abi, uint8_t *code,
			 size_t cap, uint32_t *at);

/*
 * Executable memory for native programs, from the environment (the
 * kernel: the probe patch arenas; the host tests: mmap).
 * dif_jit_code_alloc gives bytes of memory that runs at *runs (the
 * address dif_run calls) and is written through *writable before first
 * use; NULL when there is none. dif_jit_code_free gives it back once no
 * CPU can run it (the kernel waits for that itself).
 * Caller's context: thread; may sleep.
 */
void *dif_jit_code_alloc(size_t bytes, uint64_t *runs, uint8_t **writable);
void dif_jit_code_free(void *mem);

/*
 * dif_jit_compile - give p native code.
 * Return value: 0 with p->native and p->native_mem set; -1 when p stays
 *   interpreted (no compiler for this machine, over DIF_JIT_MAX_INSNS
 *   instructions, no executable memory, code over the environment's
 *   largest allocation), which is never an error: the interpreter runs it.
 * Caller's context: thread, after dif_verify(p) accepted p; may sleep.
 */
int dif_jit_compile(struct dif_prog *p);

/* dif_jit_release - free p's native code (p runs interpreted afterwards). */
void dif_jit_release(struct dif_prog *p);

#endif
