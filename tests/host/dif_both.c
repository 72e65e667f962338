// SPDX-License-Identifier: BSD-2-Clause
/*
 * Running a DIF program natively and interpreted, and comparing
 * (dif_both.h). Both runs use the same environment buffer, restored in
 * between, so addresses a program makes (scratch strings) are the same
 * in both and compare as numbers.
 */
#include <stdlib.h>
#include <string.h>
#include "dif_both.h"
#include <scion/dif_jit.h>

unsigned long dif_both_runs;

int dif_run_both(struct host_test_ctx *t, const struct dif_prog *p, const struct dif_env_ops *ops,
		 void *env, size_t env_size, const struct dif_both_extra *extra, uint64_t *out,
		 struct dif_fault *fault)
{
	struct dif_prog native = *p;
	native.native = NULL;
	native.native_mem = NULL;
	native.native_len = 0;
	native.lone_builtin = 0;
	if (dif_jit_compile(&native)) {
		host_fail(t, __FILE__, __LINE__, "the DIF compiler refused a verified program "
			  "of %u instructions", p->ninsns);
		return dif_run(p, ops, env, out, fault);
	}
	size_t extra_size = extra ? extra->size : 0;
	uint8_t *before = malloc(env_size + extra_size), *after = malloc(env_size + extra_size);
	memcpy(before, env, env_size);
	if (extra_size)
		memcpy(before + env_size, extra->at, extra_size);

	uint64_t native_out = 0xdeadbeef;
	struct dif_fault native_fault = { .kind = DIF_FAULT_KINDS };
	int native_rc = dif_run(&native, ops, env, &native_out, &native_fault);
	memcpy(after, env, env_size);
	if (extra_size)
		memcpy(after + env_size, extra->at, extra_size);

	memcpy(env, before, env_size);
	if (extra_size)
		memcpy(extra->at, before + env_size, extra_size);
	*out = 0xdeadbeef;
	int rc = dif_run(p, ops, env, out, fault);

	if (native_rc != rc)
		host_fail(t, __FILE__, __LINE__, "native code returned %d, the interpreter %d",
			  native_rc, rc);
	else if (rc == 0 && native_out != *out)
		host_fail(t, __FILE__, __LINE__, "native result %#llx, interpreted %#llx",
			  (unsigned long long)native_out, (unsigned long long)*out);
	else if (rc && (native_fault.kind != fault->kind || native_fault.pc != fault->pc ||
			native_fault.addr != fault->addr))
		host_fail(t, __FILE__, __LINE__, "native fault %s at pc %u addr %#llx, "
			  "interpreted %s at pc %u addr %#llx", dif_fault_name(native_fault.kind),
			  native_fault.pc, (unsigned long long)native_fault.addr,
			  dif_fault_name(fault->kind), fault->pc, (unsigned long long)fault->addr);
	else if (memcmp(after, env, env_size) ||
		 (extra_size && memcmp(after + env_size, extra->at, extra_size)))
		host_fail(t, __FILE__, __LINE__, "native code left the environment different");
	dif_jit_release(&native);
	dif_both_runs++;
	free(before);
	free(after);
	return rc;
}
