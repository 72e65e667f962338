// SPDX-License-Identifier: BSD-2-Clause
/*
 * libFuzzer target: the DIF verifier and interpreter on arbitrary
 * programs. The input is split into a program (instructions, string
 * table, variables, result and string sizes); the verifier must never
 * crash, and a program it accepts must run to RET or to a fault with a
 * known kind at one of its instructions, reading only through the
 * environment (which allows a small buffer, the string table and its
 * scratch) and writing only the scratch it took (stores, alloca, bcopy,
 * copyinto): the buffer and the string table are compared with copies
 * after each run, and scratch past the most it ever took must still
 * hold its fill. Each accepted program is also compiled (scion/dif_jit.h)
 * and run natively from the same state: its status, result, fault,
 * scratch and environment must be the interpreter's.
 */
#include <stdlib.h>
#include <string.h>
#include "fuzz.h"
#include <scion/dif_exec.h>
#include <scion/dif_jit.h>

#define MAX_INSNS   48
#define MAX_VARS    4
#define MAX_STRTAB  96
#define SCRATCH     4096

struct region {
	uint64_t base;
	size_t len;
};

struct env {
	struct region regions[3];
	char *scratch;
	size_t scratch_used;
	size_t scratch_high;		/* the most scratch_used ever was */
	uint64_t vars[MAX_VARS];
	uint64_t strtok[2];
};

static int env_read(void *e, uint64_t addr, void *buf, size_t n)
{
	struct env *env = e;
	for (int i = 0; i < 3; i++) {
		struct region *r = &env->regions[i];
		if (addr >= r->base && addr - r->base <= r->len && n <= r->len - (addr - r->base)) {
			/*
			 * Byte by byte, forward, as the kernel's arch_safe_read (rep
			 * movsb) copies: a D program may read scratch memory that the
			 * copy's own destination overlaps, which memcpy may not do.
			 */
			const volatile uint8_t *from = (const uint8_t *)(uintptr_t)addr;
			uint8_t *to = buf;
			for (size_t k = 0; k < n; k++)
				to[k] = from[k];
			return 0;
		}
	}
	return -14;
}

static uint64_t env_builtin(void *e, unsigned id)
{
	FUZZ_ASSERT(id < DIF_VAR_LIMIT, "built-in %u reached the environment", id);
	return ((struct env *)e)->regions[0].base + id;
}

static int env_load(void *e, const struct dif_var *v, const struct dif_tuple_item *k, unsigned nk,
		    uint64_t *out)
{
	FUZZ_ASSERT(v->kind == DIF_KIND_ASSOC ? nk == v->nkeys && k : nk == 0, "key count");
	*out = ((struct env *)e)->vars[v->id % MAX_VARS];
	return 0;
}

static int env_store(void *e, const struct dif_var *v, const struct dif_tuple_item *k, unsigned nk,
		     uint64_t value)
{
	FUZZ_ASSERT(v->kind == DIF_KIND_ASSOC ? nk == v->nkeys && k : nk == 0, "key count");
	((struct env *)e)->vars[v->id % MAX_VARS] = value;
	return value == 0xdead ? -28 : 0;
}

static void *env_scratch(void *e, size_t bytes)
{
	struct env *env = e;
	if (bytes > SCRATCH - env->scratch_used)
		return NULL;
	env->scratch_used += bytes;
	if (env->scratch_used > env->scratch_high)
		env->scratch_high = env->scratch_used;
	return env->scratch + env->scratch_used - bytes;
}

static bool env_writable(void *e, uint64_t addr, size_t n)
{
	struct env *env = e;
	uint64_t base = (uint64_t)(uintptr_t)env->scratch;
	return addr >= base && addr - base <= env->scratch_used && n <= env->scratch_used - (addr - base);
}

static void env_release(void *e, void *from)
{
	struct env *env = e;
	FUZZ_ASSERT((char *)from >= env->scratch && (char *)from <= env->scratch + env->scratch_used,
		    "scratch given back from outside what was taken");
	env->scratch_used = (size_t)((char *)from - env->scratch);
}

static uint64_t env_random(void *e)
{
	(void)e;
	return 12345;
}

static uint64_t *env_strtok(void *e)
{
	return ((struct env *)e)->strtok;
}

static const struct dif_env_ops ops = {
	env_read, env_builtin, env_load, env_store, env_scratch, env_random, env_random, env_strtok,
	env_release, env_read,	/* copyin reads the same fake memory */
	env_writable,
};

/*
 * The program again as native code, from the state before (env_before,
 * scratch_before), with the interpreter's outcome to match; env is left
 * as the interpreter left it.
 */
static void check_native(struct dif_prog *prog, struct env *env, const struct env *env_before,
			 const char *scratch_before, int rc, uint64_t result,
			 const struct dif_fault *fault)
{
	if (dif_jit_compile(prog))
		return;
	struct env interpreted = *env;
	char *scratch_after = malloc(SCRATCH);
	memcpy(scratch_after, env->scratch, SCRATCH);
	*env = *env_before;
	memcpy(env->scratch, scratch_before, SCRATCH);
	uint64_t native_result = 0;
	struct dif_fault native_fault = { 0 };
	int native_rc = dif_run(prog, &ops, env, &native_result, &native_fault);
	FUZZ_ASSERT(native_rc == rc && (rc || native_result == result) &&
		    (!rc || (native_fault.kind == fault->kind && native_fault.pc == fault->pc &&
			     native_fault.addr == fault->addr)),
		    "native code: status %d result %llx fault %d at %u; interpreted: %d %llx %d at %u",
		    native_rc, (unsigned long long)native_result, native_fault.kind, native_fault.pc,
		    rc, (unsigned long long)result, fault->kind, fault->pc);
	FUZZ_ASSERT(!memcmp(scratch_after, env->scratch, SCRATCH) &&
		    !memcmp(interpreted.vars, env->vars, sizeof(env->vars)) &&
		    !memcmp(interpreted.strtok, env->strtok, sizeof(env->strtok)) &&
		    interpreted.scratch_used == env->scratch_used &&
		    interpreted.scratch_high == env->scratch_high,
		    "native code left the environment different from the interpreter");
	free(scratch_after);
	dif_jit_release(prog);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static uint8_t buffer[64];
	struct dif_insn insns[MAX_INSNS];
	struct dif_var vars[MAX_VARS];
	char strtab[MAX_STRTAB];
	uint64_t ints[2] = { 0x8000000000000000ull, (uint64_t)(uintptr_t)buffer };

	if (size < 4)
		return 0;
	uint32_t ninsns = data[0] % (MAX_INSNS + 1), nvars = data[1] % (MAX_VARS + 1);
	uint32_t strtab_len = data[2] % (MAX_STRTAB + 1);
	size_t need = 4 + ninsns * sizeof(struct dif_insn) + strtab_len + nvars * sizeof(struct dif_var);
	if (size < need)
		return 0;
	const uint8_t *p = data + 4;
	memcpy(insns, p, ninsns * sizeof(struct dif_insn));
	p += ninsns * sizeof(struct dif_insn);
	memcpy(strtab, p, strtab_len);
	p += strtab_len;
	memcpy(vars, p, nvars * sizeof(struct dif_var));

	struct dif_prog prog = {
		.insns = insns, .ninsns = ninsns, .ints = ints, .nints = 2,
		.strtab = strtab_len ? strtab : NULL, .strtab_len = strtab_len,
		.vars = nvars ? vars : NULL, .nvars = nvars,
		.rtype = data[3] & 1 ? DIF_TYPE_STRING : DIF_TYPE_INT,
		.rsize = data[3] & 1 ? 16 : 0, .strsize = 2 + (data[3] >> 1) * 4,
	};
	char why[160];
	if (dif_verify(&prog, why, sizeof(why))) {
		FUZZ_ASSERT(why[0] != '\0', "a refusal without a reason");
		return 0;
	}
	struct env env = { .scratch = malloc(SCRATCH) };
	memset(env.scratch, 0xa5, SCRATCH);
	uint8_t buffer_was[sizeof(buffer)];
	char strtab_was[MAX_STRTAB];
	memcpy(buffer_was, buffer, sizeof(buffer));
	memcpy(strtab_was, strtab, strtab_len);
	env.regions[0] = (struct region){ (uint64_t)(uintptr_t)buffer, sizeof(buffer) };
	env.regions[1] = (struct region){ (uint64_t)(uintptr_t)strtab, strtab_len };
	env.regions[2] = (struct region){ (uint64_t)(uintptr_t)env.scratch, SCRATCH };
	uint64_t result;
	struct dif_fault fault;
	struct env env_before = env;
	char *scratch_before = malloc(SCRATCH);
	memcpy(scratch_before, env.scratch, SCRATCH);
	int rc = dif_run(&prog, &ops, &env, &result, &fault);
	check_native(&prog, &env, &env_before, scratch_before, rc, result, &fault);
	free(scratch_before);
	if (rc)
		FUZZ_ASSERT(fault.kind > DIF_FAULT_NONE && fault.kind < DIF_FAULT_KINDS &&
			    fault.kind != DIF_FAULT_ILLOP && fault.pc < ninsns,
			    "fault %d at %u of a verified %u-instruction program", fault.kind, fault.pc,
			    ninsns);
	FUZZ_ASSERT(!memcmp(buffer, buffer_was, sizeof(buffer)) &&
		    !memcmp(strtab, strtab_was, strtab_len), "a program wrote memory it may only read");
	for (size_t i = env.scratch_high; i < SCRATCH; i++)
		FUZZ_ASSERT((uint8_t)env.scratch[i] == 0xa5, "scratch written past what was taken "
			    "(byte %zu, %zu taken at most)", i, env.scratch_high);
	free(env.scratch);
	return 0;
}
