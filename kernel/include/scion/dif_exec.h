/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Running verified DIF programs (kernel/trace/dif_exec.c). The
 * interpreter is portable: everything it needs from the machine comes
 * through struct dif_env_ops, which the kernel fills with its
 * fault-tolerant loads, built-in variables and dynamic variable space,
 * and the host tests with fakes.
 *
 * A run error stops the program and is described by struct dif_fault;
 * the caller reports it (dtrace's "error on enabled probe ID ...") and
 * drops that firing. Nothing a program does can crash its caller.
 */
#ifndef SCION_DIF_EXEC_H
#define SCION_DIF_EXEC_H

#include <scion/dif.h>

enum dif_fault_kind {
	DIF_FAULT_NONE,
	DIF_FAULT_BADADDR,	/* a load from an address that does not read, a store
				   to one the program may not write */
	DIF_FAULT_ALIGN,	/* a load or store not aligned to its size */
	DIF_FAULT_DIVZERO,	/* division or remainder by zero */
	DIF_FAULT_NOSCRATCH,	/* scratch space for a string ran out */
	DIF_FAULT_TUPLE,	/* more than DIF_MAX_TUPLE values pushed */
	DIF_FAULT_DYNVAR,	/* dynamic variable space exhausted (reported as a drop) */
	DIF_FAULT_BADARG,	/* a subroutine argument out of its range, a key of the wrong size */
	DIF_FAULT_ILLOP,	/* an instruction dif_verify would have refused */
	DIF_FAULT_BADINDEX,	/* an index past the end of a D array variable (BND) */
	DIF_FAULT_KINDS,
};

#define DIF_PC_NONE 0xffffffffu	/* a fault after the program ran (copying its result) */

struct dif_fault {
	enum dif_fault_kind kind;
	uint32_t pc;		/* the instruction that failed, or DIF_PC_NONE */
	uint64_t addr;		/* BADADDR, ALIGN: the address; BADINDEX: the index */
};

/* One value of a key or argument tuple: an integer, or a string by address. */
struct dif_tuple_item {
	uint64_t value;
	uint32_t size;		/* 0: integer; else the most bytes of the string */
};

/*
 * What the interpreter asks of its environment. Each op is called in
 * the interpreter's context (probe context in the kernel: interrupts
 * masked, no sleeping, no locks that a probed function may hold).
 */
struct dif_env_ops {
	/* Read n bytes at addr into buf; 0, or -EFAULT without a fault taken. */
	int (*read)(void *env, uint64_t addr, void *buf, size_t n);
	/* The value of built-in variable id (DIF_VAR_*); strings as addresses. */
	uint64_t (*builtin)(void *env, unsigned id);
	/*
	 * Load or store variable v (keyed by keys[0..nkeys) for an assoc).
	 * A load of a variable never stored gives 0 (an empty string's
	 * address for strings). A store of a string copies at most v->size
	 * bytes; storing 0 into an assoc element deletes it. Return value:
	 * 0, or -ENOSPC when dynamic variable space is exhausted (a
	 * DIF_FAULT_DYNVAR), -EFAULT when a string (key or value) does not
	 * read (DIF_FAULT_BADADDR), -ENOMEM when scratch space ran out
	 * (DIF_FAULT_NOSCRATCH).
	 */
	int (*load_var)(void *env, const struct dif_var *v, const struct dif_tuple_item *keys,
			unsigned nkeys, uint64_t *out);
	int (*store_var)(void *env, const struct dif_var *v, const struct dif_tuple_item *keys,
			 unsigned nkeys, uint64_t value);
	/*
	 * bytes of scratch space for this firing, or NULL when there is none
	 * left; 0 bytes gives where the next allocation would start.
	 */
	void *(*scratch)(void *env, size_t bytes);
	/* A pseudo-random number (rand()), a new speculation id or 0 (speculation()). */
	uint64_t (*random)(void *env);
	uint64_t (*speculation)(void *env);
	/*
	 * strtok()'s place for this probe firing: two words, the address it
	 * reads next and the address its string must end by (0, 0 at each
	 * firing: nothing to go on). NULL when the environment keeps none.
	 */
	uint64_t *(*strtok_state)(void *env);
	/*
	 * Give back the scratch allocated from `from` (what scratch(env, 0)
	 * gave) on: the copies a comparison or a subroutine that returns an
	 * integer (strlen, index...) made for itself, which nothing reads
	 * afterwards. NULL: scratch is only given back after the firing.
	 */
	void (*scratch_release)(void *env, void *from);
	/*
	 * copyin() and copyinstr(): read n bytes of the current process's
	 * memory at user address addr into buf. 0, or -EFAULT without a fault
	 * taken and without resolving one: a kernel address, a page the
	 * process never touched, no process (a kernel thread). NULL: the
	 * environment has no user memory (every copyin faults).
	 */
	int (*copyin)(void *env, uint64_t addr, void *buf, size_t n);
	/*
	 * Whether the program may write the n bytes at addr (a store,
	 * bcopy's or copyinto's destination): only scratch space this
	 * firing has taken so far. NULL: the program writes nothing (every
	 * store faults).
	 */
	bool (*writable)(void *env, uint64_t addr, size_t n);
};

/*
 * dif_run - run a program that dif_verify accepted.
 * Arguments: p; ops and env, its environment; *result receives what RET
 *   returned; *fault is filled in when the run fails.
 * Return value: 0, or -1 with *fault describing the error.
 * Caller's context: any that ops allow; never sleeps; runs at most
 *   p->ninsns instructions (subroutines: bounded by DIF_STRSIZE_MAX).
 */
int dif_run(const struct dif_prog *p, const struct dif_env_ops *ops, void *env,
	    uint64_t *result, struct dif_fault *fault);

/*
 * dif_copy_string - copy the NUL-terminated string at addr into buf
 *   through ops->read, in aligned chunks that never cross a page.
 * Arguments: ops and env as for dif_run; buf, room for max bytes (max >
 *   0), NUL included: a longer string is cut there; the bytes a chunk
 *   read past the NUL are cleared, so no other data follows the string.
 * Return value: the string's length, or -1 with *bad set to the address
 *   that did not read.
 * Caller's context: as dif_run.
 */
long dif_copy_string(const struct dif_env_ops *ops, void *env, uint64_t addr, char *buf,
		     size_t max, uint64_t *bad);

/* "invalid address", "division by zero", ... for a fault kind. */
const char *dif_fault_name(enum dif_fault_kind kind);

#endif
