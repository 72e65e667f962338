/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The interpreter's state for one run, shared by dif_exec.c (the
 * instructions), dif_subr.c, dif_subr_search.c and dif_subr_convert.c
 * (the subroutines).
 * One run belongs to one caller on one CPU: nothing here is shared or
 * locked.
 */
#ifndef DIF_INTERNAL_H
#define DIF_INTERNAL_H

#include <scion/dif_exec.h>

#define DIF_READ_CHUNK 64	/* a power of two below the page size: a read never crosses a page */

struct run {
	const struct dif_prog *p;
	const struct dif_env_ops *ops;
	void *env;
	uint64_t r[DIF_NREGS];
	struct dif_tuple_item tuple[DIF_MAX_TUPLE];	/* keys or arguments pushed so far */
	unsigned ntuple;
	struct dif_fault *fault;
	uint32_t pc;
};

/*
 * dif_exec_insn - run the one instruction at x->pc (never a branch or
 *   RET: native code runs those itself), as dif_run would.
 * Return value: 0, or -1 with the fault recorded at x->pc.
 * Caller's context: native code of x->p (scion/dif_jit.h).
 */
int dif_exec_insn(struct run *x);

/* Record a fault of kind at the current instruction; returns -1. */
int dif_fail(struct run *x, enum dif_fault_kind kind, uint64_t addr);

/*
 * Copy the string at addr into buf (at most max bytes, NUL included; a
 * longer one is cut there), reading in aligned chunks that never cross
 * a page. Return value: its length, or -1 after a fault.
 */
long dif_read_string(struct run *x, uint64_t addr, char *buf, size_t max);

/* Scratch space for one string of the program's strsize, or NULL after a fault. */
char *dif_scratch_string(struct run *x);

/*
 * Where the scratch a subroutine or comparison is about to take for its
 * own copies starts, and giving it back once its integer result is made,
 * so many calls in one clause do not run out (DTrace's read in place).
 */
void *dif_scratch_mark(struct run *x);
void dif_scratch_release(struct run *x, void *mark);

/* Argument i as a string copied into fresh scratch (*len its length); NULL after a fault. */
char *dif_string_arg(struct run *x, unsigned i, long *len);

/*
 * dif_subr_search - index, rindex, strstr, strchr, strrchr and strtok
 * (dif_subr_search.c), with x->tuple already checked against their arity.
 * Return value: as dif_subr_call's.
 */
int dif_subr_search(struct run *x, unsigned id, uint64_t *out);

/*
 * dif_subr_convert - toupper, tolower, strtoll, cleanpath and the byte
 * order conversions (dif_subr_convert.c), arity already checked.
 * Return value: as dif_subr_call's.
 */
int dif_subr_convert(struct run *x, unsigned id, uint64_t *out);

/*
 * dif_subr_call - run subroutine id with the arguments in x->tuple.
 * Return value: 0 with *out set, or -1 after a fault (wrong number of
 *   arguments, bad argument, bad address, no scratch).
 */
int dif_subr_call(struct run *x, unsigned id, uint64_t *out);

#endif
