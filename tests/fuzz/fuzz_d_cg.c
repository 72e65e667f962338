// SPDX-License-Identifier: BSD-2-Clause
/*
 * libFuzzer target: the D compiler through code generation
 * (host/dtrace/dt_cg*.c, dt_dof.c) on arbitrary source. The first
 * byte picks the mode (-n or a script) and the strsize option; the rest
 * is the program. A program the front end accepts must either generate
 * or fail with reported errors; a generated object must hold only
 * programs dif_verify accepts, stay within the object format's limits,
 * have consistent action and record layouts, and serialize to exactly
 * its size; each program then runs in a small fake environment (it may
 * fault, never crash; loads through pointers read only memory the
 * environment knows). Generating twice gives the same bytes.
 */
#include <string.h>
#include "fuzz.h"
#include <scion/dif_exec.h>
#include "../../host/dtrace/dtrace.h"

#define SCRATCH 8192

struct env {
	char scratch[SCRATCH];
	size_t used;
	const struct dif_prog *prog;	/* the program running: its string table reads */
	uint64_t strtok[2];
};

/* The strings the environment hands out (built-ins, unset string variables). */
static const char fuzz_name[] = "fuzz", empty[] = "";

/* Bytes from addr to the end of [base, base + len), or 0 when addr is outside it. */
static size_t left_in(uint64_t addr, const void *base, size_t len)
{
	uint64_t start = (uint64_t)(uintptr_t)base;
	return base && addr >= start && addr - start < len ? (size_t)(start + len - addr) : 0;
}

/*
 * Only memory the program may name reads: scratch, its string table and
 * the environment's strings; any other address (D can load through any
 * integer cast to a pointer) fails as an unmapped one would. A read
 * running past its region's end gets zeros there: strings stop at their NUL.
 */
static int env_read(void *e, uint64_t addr, void *buf, size_t n)
{
	struct env *env = e;
	size_t left = left_in(addr, env->scratch, SCRATCH);
	if (!left)
		left = left_in(addr, env->prog->strtab, env->prog->strtab_len);
	if (!left)
		left = left_in(addr, fuzz_name, sizeof(fuzz_name));
	if (!left)
		left = left_in(addr, empty, sizeof(empty));
	if (!left)
		return -14;
	memset(buf, 0, n);
	memcpy(buf, (const void *)(uintptr_t)addr, n < left ? n : left);
	return 0;
}

static uint64_t env_builtin(void *e, unsigned id)
{
	(void)e;
	FUZZ_ASSERT(id < DIF_VAR_LIMIT, "built-in %u reached the environment", id);
	switch (id) {
	case DIF_VAR_EXECNAME: case DIF_VAR_PROBEPROV: case DIF_VAR_PROBEMOD:
	case DIF_VAR_PROBEFUNC: case DIF_VAR_PROBENAME:
		return (uint64_t)(uintptr_t)fuzz_name;
	default:
		return id * 7919u;
	}
}

static int env_load(void *e, const struct dif_var *v, const struct dif_tuple_item *k,
		    unsigned nk, uint64_t *out)
{
	(void)e;
	FUZZ_ASSERT(v->kind == DIF_KIND_ASSOC ? nk == v->nkeys && k : nk == 0, "key count");
	*out = v->type == DIF_TYPE_STRING ? (uint64_t)(uintptr_t)empty : 0;
	return 0;
}

static int env_store(void *e, const struct dif_var *v, const struct dif_tuple_item *k,
		     unsigned nk, uint64_t value)
{
	(void)e;
	(void)value;
	FUZZ_ASSERT(v->kind == DIF_KIND_ASSOC ? nk == v->nkeys && k : nk == 0, "key count");
	return 0;
}

static void *env_scratch(void *e, size_t bytes)
{
	struct env *env = e;
	if (bytes > SCRATCH - env->used)
		return NULL;
	env->used += bytes;
	return env->scratch + env->used - bytes;
}

static uint64_t env_random(void *e)
{
	(void)e;
	return 4;
}

static uint64_t *env_strtok(void *e)
{
	return ((struct env *)e)->strtok;
}

/* As the kernel's: only the scratch taken so far (alloca's, strings made). */
static bool env_writable(void *e, uint64_t addr, size_t n)
{
	struct env *env = e;
	uint64_t base = (uint64_t)(uintptr_t)env->scratch;
	return addr >= base && addr - base <= env->used && n <= env->used - (addr - base);
}

static const struct dif_env_ops ops = {
	env_read, env_builtin, env_load, env_store, env_scratch, env_random, env_random, env_strtok,
	NULL, NULL,	/* no user memory: copyin faults */
	env_writable,
};

static void check_object(const struct dt_object *obj)
{
	char why[200];
	FUZZ_ASSERT(obj->bytes && obj->size > 0 && obj->size <= DOF_MAX_OBJECT, "object size %zu",
		    obj->size);
	FUZZ_ASSERT(obj->nprogs <= DOF_MAX_PROGS, "%u programs", obj->nprogs);
	for (uint32_t i = 0; i < obj->nprogs; i++) {
		const struct dif_prog *p = &obj->progs[i];
		FUZZ_ASSERT(dif_verify(p, why, sizeof(why)) == 0, "program %u: %s", i, why);
		struct env env = { .used = 0, .prog = p };
		struct dif_fault fault;
		uint64_t v;
		if (dif_run(p, &ops, &env, &v, &fault))
			FUZZ_ASSERT(fault.kind > DIF_FAULT_NONE && fault.kind < DIF_FAULT_KINDS &&
				    fault.pc < p->ninsns, "fault %d at %u", fault.kind, fault.pc);
	}
	for (int c = 0; c < obj->nclauses; c++) {
		const struct dt_clause_code *cc = &obj->clauses[c];
		FUZZ_ASSERT(cc->nkactions <= DOF_MAX_ACTIONS, "%d actions", cc->nkactions);
		FUZZ_ASSERT(cc->predicate == DOF_NONE || cc->predicate < obj->nprogs, "predicate");
		FUZZ_ASSERT(cc->size <= DOF_MAX_RECORD, "record of %u bytes", cc->size);
		FUZZ_ASSERT(!!(cc->flags & DOF_CLAUSE_RECORD) == (cc->size != 0), "record flag");
		for (int a = 0; a < cc->nkactions; a++) {
			const struct dt_kaction *k = &cc->kactions[a];
			FUZZ_ASSERT(k->kind >= DOF_ACT_EXPR && k->kind < DOF_ACT_LIMIT, "kind %u", k->kind);
			FUZZ_ASSERT(k->kind != DOF_ACT_SPECULATE || a == 0, "SPECULATE not first");
			for (int j = 0; j < k->nprogs; j++)
				FUZZ_ASSERT(k->progs[j] < obj->nprogs, "program index");
		}
		uint32_t end = sizeof(struct dof_rechdr);
		for (int a = 0; a < cc->nactions; a++)
			for (int d = 0; d < cc->actions[a].ndata; d++) {
				const struct dt_datum *x = &cc->actions[a].data[d];
				FUZZ_ASSERT(x->offset % 8 == 0 && x->offset >= end, "datum at %u", x->offset);
				end = x->offset + x->size;
			}
		FUZZ_ASSERT(cc->size ? end <= cc->size : end == sizeof(struct dof_rechdr),
			    "data end %u past the record's %u bytes", end, cc->size);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const strsizes[] = { NULL, "2", "17", "4096" };
	if (size < 1)
		return 0;
	unsigned mode = data[0];
	struct dt_options opts;
	char err[200];
	dt_options_init(&opts);
	if (strsizes[(mode >> 1) & 3])
		dt_option_set(&opts, "strsize", strsizes[(mode >> 1) & 3], err, sizeof(err));
	struct dt_compile_args args = {
		.filename = "fuzz.d", .flags = mode & 1 ? DT_COMPILE_PROBESPEC : 0, .options = &opts,
	};
	struct dt_program *p = dt_compile_with((const char *)data + 1, size - 1, &args);
	if (!p || p->nerrors) {
		dt_program_free(p);
		return 0;
	}
	struct dt_object *obj;
	if (dt_generate(p, &obj)) {
		FUZZ_ASSERT(obj == NULL && p->nerrors > 0, "failed without an error");
		for (int i = 0; i < p->nerrors; i++)
			FUZZ_ASSERT(p->errors[i].message && p->errors[i].message[0], "empty message");
	} else {
		check_object(obj);
		struct dt_program *again = dt_compile_with((const char *)data + 1, size - 1, &args);
		struct dt_object *obj2;
		FUZZ_ASSERT(again && again->nerrors == 0 && dt_generate(again, &obj2) == 0 &&
			    obj2->size == obj->size && !memcmp(obj2->bytes, obj->bytes, obj->size),
			    "two generations differ");
		char *json = dt_object_json(obj);
		FUZZ_ASSERT(json != NULL, "no JSON");
		free(json);
		dt_program_free(again);
	}
	dt_program_free(p);
	return 0;
}
