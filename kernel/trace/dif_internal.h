/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The interpreter's state for one run, shared by dif_exec.c (the
 * instructions) and dif_subr.c (the subroutines). One run belongs to
 * one caller on one CPU: nothing here is shared or locked.
 */
#ifndef DIF_INTERNAL_H
#define DIF_INTERNAL_H

#include <scion/dif_exec.h>

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
 * dif_subr_call - run subroutine id with the arguments in x->tuple.
 * Return value: 0 with *out set, or -1 after a fault (wrong number of
 *   arguments, bad argument, bad address, no scratch).
 */
int dif_subr_call(struct run *x, unsigned id, uint64_t *out);

#endif
