/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Running a DIF program both ways (tests/host/dif_both.c): as native
 * code from the DIF compiler (scion/dif_jit.h) and in the interpreter,
 * from the same state, and checking that they agree. The host tests of
 * the interpreter run every program through it, so each of their cases
 * is also a case of the compiler.
 */
#ifndef DIF_BOTH_H
#define DIF_BOTH_H

#include <stddef.h>
#include "host_test.h"
#include <scion/dif_exec.h>

/* State a run may change besides its environment (a strtok place, a counter). */
struct dif_both_extra {
	void *at;
	size_t size;
};

/*
 * dif_run_both - run verified p natively, then (from the state before)
 * interpreted; fail t unless the status, the result, the fault (kind,
 * pc, address), the env_size bytes at env and the extra state all agree,
 * or unless p could not be compiled.
 * Return value: the interpreter's status; *out, *fault, env and extra as
 *   it left them.
 */
int dif_run_both(struct host_test_ctx *t, const struct dif_prog *p, const struct dif_env_ops *ops,
		 void *env, size_t env_size, const struct dif_both_extra *extra, uint64_t *out,
		 struct dif_fault *fault);

/* Programs dif_run_both compiled and ran both ways since the process started. */
extern unsigned long dif_both_runs;

#endif
