// SPDX-License-Identifier: BSD-2-Clause
/*
 * The fake kernel of the code generator's host tests (d_cg_helpers.h):
 * dif_env_ops over host memory, variables kept in a small table keyed
 * by scope, id, thread and key tuple, and fake_fire, which runs one
 * clause's programs in order as the kernel's probe context would.
 *
 * Reads: addresses below 4096 fault (as NULL does in the kernel); the
 * test's memory (fake_kernel.memory) reads byte for byte; any
 * other address is a host pointer to a NUL-terminated string (the
 * program's table, scratch, a variable's copy, a built-in's text), read
 * no further than its NUL so AddressSanitizer stays quiet.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "host_test.h"
#include "d_cg_helpers.h"

#define NULL_PAGE 4096
#define FAKE_EFAULT (-14)
#define FAKE_ENOSPC (-28)

static bool in_byref_var(const struct fake_kernel *k, uint64_t addr, size_t n);

static int fake_read(void *env, uint64_t addr, void *buf, size_t n)
{
	const struct fake_kernel *k = env;
	uint64_t mem = (uint64_t)(uintptr_t)k->memory;
	if (addr < NULL_PAGE)
		return FAKE_EFAULT;
	/* The test's memory, and the page after it, which reads as unmapped. */
	if (k->memory && addr >= mem && addr - mem < k->memory_size + NULL_PAGE) {
		if (n > k->memory_size - (addr - mem))
			return FAKE_EFAULT;
		memcpy(buf, (const void *)(uintptr_t)addr, n);
		return 0;
	}
	/* Scratch (strings made, alloca's memory) and by-reference variables read whole. */
	uint64_t scratch = (uint64_t)(uintptr_t)k->scratch;
	if ((addr >= scratch && addr - scratch <= sizeof(k->scratch) &&
	     n <= sizeof(k->scratch) - (addr - scratch)) || in_byref_var(k, addr, n)) {
		memmove(buf, (const void *)(uintptr_t)addr, n);
		return 0;
	}
	const char *from = (const char *)(uintptr_t)addr;
	char *to = buf;
	for (size_t i = 0; i < n && (i == 0 || from[i - 1]); i++)
		to[i] = from[i];
	return 0;
}

static uint64_t fake_builtin(void *env, unsigned id)
{
	struct fake_kernel *k = env;
	return id < DIF_VAR_LIMIT ? k->builtin[id] : 0;
}

static char *copy_string(uint64_t addr, size_t max)
{
	const char *s = (const char *)(uintptr_t)addr;
	size_t n = addr < NULL_PAGE ? 0 : strnlen(s, max ? max - 1 : 0);
	char *c = malloc(n + 1);
	if (!c)
		abort();
	memcpy(c, addr < NULL_PAGE ? "" : s, n);
	c[n] = '\0';
	return c;
}

static void free_tuple(struct fake_tuple *t)
{
	for (unsigned i = 0; i < t->n; i++)
		free(t->str[i]);
	t->n = 0;
}

static bool same_keys(const struct fake_tuple *t, const struct dif_tuple_item *keys,
		      unsigned nkeys)
{
	if (t->n != nkeys)
		return false;
	for (unsigned i = 0; i < nkeys; i++) {
		if ((t->str[i] != NULL) != (keys[i].size != 0))
			return false;
		if (t->str[i] ? strncmp(t->str[i], (const char *)(uintptr_t)keys[i].value,
					keys[i].size) != 0 : t->value[i] != keys[i].value)
			return false;
	}
	return true;
}

static struct fake_var *find_var(struct fake_kernel *k, const struct dif_var *v,
				 const struct dif_tuple_item *keys, unsigned nkeys)
{
	for (unsigned i = 0; i < k->nvars; i++) {
		struct fake_var *f = &k->vars[i];
		if (f->scope == v->scope && f->kind == v->kind && f->id == v->id &&
		    (v->scope != DIF_SCOPE_THREAD || f->thread == k->thread) &&
		    same_keys(&f->keys, keys, nkeys))
			return f;
	}
	return NULL;
}

static struct fake_var *new_var(struct fake_kernel *k, const struct dif_var *v,
				const struct dif_tuple_item *keys, unsigned nkeys);

/*
 * A variable (or an associative array's element, or a thread's) held by
 * reference: storage of its size, zeroed when first used, as the kernel's.
 */
static struct fake_var *byref_var(struct fake_kernel *k, const struct dif_var *v,
				  const struct dif_tuple_item *keys, unsigned nkeys)
{
	struct fake_var *f = find_var(k, v, keys, nkeys);
	if (f || !(f = new_var(k, v, keys, nkeys)))
		return f;
	f->str = calloc(1, v->size);
	if (!f->str)
		abort();
	f->byref_size = v->size;
	f->value = (uint64_t)(uintptr_t)f->str;
	return f;
}

/* Whether [addr, addr + n) lies in one variable's storage held by reference. */
static bool in_byref_var(const struct fake_kernel *k, uint64_t addr, size_t n)
{
	for (unsigned i = 0; i < k->nvars; i++) {
		uint64_t base = (uint64_t)(uintptr_t)k->vars[i].str;
		size_t size = k->vars[i].byref_size;
		if (size && addr >= base && addr - base <= size && n <= size - (addr - base))
			return true;
	}
	return false;
}

static int fake_load_var(void *env, const struct dif_var *v, const struct dif_tuple_item *keys,
			 unsigned nkeys, uint64_t *out)
{
	struct fake_kernel *k = env;
	if (v->type == DIF_TYPE_BYREF) {
		struct fake_var *b = byref_var(k, v, keys, nkeys);
		if (!b)
			return FAKE_ENOSPC;
		*out = b->value;
		return 0;
	}
	struct fake_var *f = find_var(k, v, keys, nkeys);
	*out = f ? f->value : v->type == DIF_TYPE_STRING ? (uint64_t)(uintptr_t)"" : 0;
	return 0;
}

static void drop_var(struct fake_kernel *k, struct fake_var *f)
{
	free_tuple(&f->keys);
	free(f->str);
	*f = k->vars[--k->nvars];
}

static struct fake_var *new_var(struct fake_kernel *k, const struct dif_var *v,
				const struct dif_tuple_item *keys, unsigned nkeys)
{
	if (k->nvars == FAKE_MAX_VARS)
		return NULL;
	struct fake_var *f = &k->vars[k->nvars++];
	memset(f, 0, sizeof(*f));
	f->scope = v->scope;
	f->kind = v->kind;
	f->id = v->id;
	f->thread = k->thread;
	for (unsigned i = 0; i < nkeys; i++) {
		f->keys.value[i] = keys[i].value;
		f->keys.str[i] = keys[i].size ? copy_string(keys[i].value, keys[i].size) : NULL;
	}
	f->keys.n = nkeys;
	return f;
}

static int fake_store_var(void *env, const struct dif_var *v, const struct dif_tuple_item *keys,
			  unsigned nkeys, uint64_t value)
{
	struct fake_kernel *k = env;
	struct fake_var *f = find_var(k, v, keys, nkeys);
	if (v->kind == DIF_KIND_ASSOC && value == 0) {		/* storing 0 deletes */
		if (f)
			drop_var(k, f);
		return 0;
	}
	if (!f && !(f = new_var(k, v, keys, nkeys)))
		return FAKE_ENOSPC;
	if (v->type == DIF_TYPE_STRING) {
		free(f->str);
		f->str = copy_string(value, v->size);
		f->value = (uint64_t)(uintptr_t)f->str;
	} else {
		f->value = value;
	}
	return 0;
}

static void *fake_scratch(void *env, size_t bytes)
{
	struct fake_kernel *k = env;
	if (bytes > sizeof(k->scratch) - k->scratch_used)
		return NULL;
	k->scratch_used += bytes;
	return k->scratch + k->scratch_used - bytes;
}

static uint64_t fake_random(void *env)
{
	(void)env;
	return 0x123456789abcdef0ull;	/* rand( ) keeps the low 32 bits, signed */
}

static uint64_t fake_speculation(void *env)
{
	return ++((struct fake_kernel *)env)->next_speculation;
}

static uint64_t *fake_strtok_state(void *env)
{
	return ((struct fake_kernel *)env)->strtok;
}

/* As the kernel's: the scratch taken so far, and the variables held by reference. */
static bool fake_writable(void *env, uint64_t addr, size_t n)
{
	struct fake_kernel *k = env;
	uint64_t base = (uint64_t)(uintptr_t)k->scratch;
	return (addr >= base && addr - base <= k->scratch_used &&
		n <= k->scratch_used - (addr - base)) || in_byref_var(k, addr, n);
}

const struct dif_env_ops fake_kernel_ops = {
	fake_read, fake_builtin, fake_load_var, fake_store_var, fake_scratch, fake_random,
	fake_speculation, fake_strtok_state, NULL,	/* scratch lasts the firing */
	NULL,						/* no user memory */
	fake_writable,
};

static char fake_thread_struct[64];

void fake_kernel_init(struct fake_kernel *k)
{
	static const struct { unsigned id; const char *text; } strings[] = {
		{ DIF_VAR_EXECNAME, "kworker" }, { DIF_VAR_PROBEPROV, "fbt" },
		{ DIF_VAR_PROBEMOD, "kernel" }, { DIF_VAR_PROBEFUNC, "bcache_read" },
		{ DIF_VAR_PROBENAME, "entry" },
	};
	memset(k, 0, sizeof(*k));
	for (unsigned id = 0; id < DIF_VAR_LIMIT; id++)
		k->builtin[id] = 1000 + id;
	for (size_t i = 0; i < sizeof(strings) / sizeof(strings[0]); i++)
		k->builtin[strings[i].id] = (uint64_t)(uintptr_t)strings[i].text;
	k->builtin[DIF_VAR_CURTHREAD] = (uint64_t)(uintptr_t)fake_thread_struct;
	k->builtin[DIF_VAR_TID] = 42;
	k->thread = 42;
}

void fake_kernel_reset(struct fake_kernel *k)
{
	while (k->nvars)
		drop_var(k, &k->vars[0]);
}

/* What a program's result v records; false (a fault, as the kernel's) if an object does not read. */
static bool take_value(struct fake_kernel *k, struct fake_value *out, const struct dif_prog *p,
		       uint64_t v)
{
	memset(out, 0, sizeof(*out));
	out->value = v;
	if (p->rtype == DIF_TYPE_BYREF) {	/* an object traced whole: its bytes */
		out->nbytes = p->rsize < FAKE_STR ? p->rsize : FAKE_STR;
		if (!fake_read(k, v, out->str, out->nbytes))
			return true;
		k->fault = (struct dif_fault){ DIF_FAULT_BADADDR, DIF_PC_NONE, v };
		return false;
	}
	out->is_string = p->rtype == DIF_TYPE_STRING;
	if (out->is_string) {
		char *s = copy_string(v, p->rsize < FAKE_STR ? p->rsize : FAKE_STR);
		strcpy(out->str, s);
		free(s);
	}
	return true;
}

static int run(struct fake_kernel *k, const struct dt_object *obj, uint32_t prog, uint64_t *v)
{
	return dif_run(&obj->progs[prog], &fake_kernel_ops, k, v, &k->fault);
}

static int fire_action(struct fake_kernel *k, const struct dt_object *obj,
		       const struct dt_kaction *a)
{
	uint64_t v;
	switch (a->kind) {
	case DOF_ACT_EXPR:
		return run(k, obj, a->progs[0], &v);
	case DOF_ACT_RECORD:
	case DOF_ACT_EXIT:
		if (run(k, obj, a->progs[0], &v) || k->nrecords == FAKE_MAX_RECORDS)
			return -1;
		return take_value(k, &k->records[k->nrecords++], &obj->progs[a->progs[0]], v) ? 0 : -1;
	case DOF_ACT_SPECULATE:
	case DOF_ACT_COMMIT:
	case DOF_ACT_DISCARD:
		if (run(k, obj, a->progs[0], &v))
			return -1;
		if (k->nspeculations < 4)
			k->speculations[k->nspeculations++] = v;
		return 0;
	case DOF_ACT_AGGREGATE: {
		if (k->naggs == FAKE_MAX_AGGS)
			return -1;
		struct fake_agg_update *u = &k->aggs[k->naggs++];
		const struct dt_agg_code *ac = &obj->aggs[a->arg];
		memset(u, 0, sizeof(*u));
		u->agg = a->arg;
		u->nkeys = (unsigned)ac->nkeys;
		for (int i = 0, key = 0; i < a->nprogs; i++) {
			if (run(k, obj, a->progs[i], &v))
				return -1;
			while (key < ac->nkeys && ac->keys[key].kind == DT_DATUM_STACK)
				key++;	/* the kernel walks stack keys: no program, a zero here */
			if (key < ac->nkeys)
				take_value(k, &u->keys[key++], &obj->progs[a->progs[i]], v);
			else if (!u->has_value && ac->func != DOF_AGG_COUNT)
				u->has_value = true, u->value = v;
			else
				u->has_incr = true, u->incr = v;
		}
		return 0;
	}
	default:
		return 0;	/* STACK: nothing to compute */
	}
}

int fake_fire(struct fake_kernel *k, const struct dt_object *obj, int index)
{
	const struct dt_clause_code *cc = &obj->clauses[index];
	uint64_t v = 1;

	k->fired = false;
	k->nrecords = k->naggs = k->nspeculations = 0;
	k->scratch_used = 0;
	k->strtok[0] = k->strtok[1] = 0;
	for (unsigned i = 0; i < k->nvars;)	/* this-> lives for one firing */
		if (k->vars[i].scope == DIF_SCOPE_CLAUSE)
			drop_var(k, &k->vars[i]);
		else
			i++;
	if (cc->predicate != DOF_NONE && run(k, obj, cc->predicate, &v))
		return -1;
	if (!v)
		return 0;
	k->fired = true;
	for (int i = 0; i < cc->nkactions; i++)
		if (fire_action(k, obj, &cc->kactions[i]))
			return -1;
	return 0;
}

struct dt_object *d_generate(const char *src, struct dt_program **p)
{
	struct dt_object *obj = NULL;
	*p = dt_compile(src, strlen(src), "t.d", 0, NULL, 0);
	if (*p && (*p)->nerrors == 0 && dt_generate(*p, &obj) == 0)
		return obj;
	return NULL;
}

const char *d_first_error(const struct dt_program *p, char *buf, size_t size)
{
	if (!p || !p->nerrors)
		return "none";
	snprintf(buf, size, "%s: %s", dt_errtag_name(p->errors[0].tag), p->errors[0].message);
	return buf;
}

int d_run(const char *src, const int64_t args[D_NARGS], struct fake_kernel *k, char *why,
	  size_t whysize)
{
	struct dt_program *p;
	struct dt_object *obj = d_generate(src, &p);
	int rc = -1;
	if (!obj) {
		d_first_error(p, why, whysize);
	} else {
		for (int i = 0; i < D_NARGS; i++)
			k->builtin[DIF_VAR_ARG0 + i] = (uint64_t)args[i];
		rc = fake_fire(k, obj, 0);
		if (rc)
			snprintf(why, whysize, "fault: %s at %u", dif_fault_name(k->fault.kind),
				 k->fault.pc);
	}
	dt_program_free(p);
	return rc;
}

bool d_eval(const char *expr, const int64_t args[D_NARGS], uint64_t *value, char *why,
	    size_t whysize)
{
	char src[512];
	struct fake_kernel k;
	fake_kernel_init(&k);
	snprintf(src, sizeof(src), "BEGIN { trace(%s); }", expr);
	int rc = d_run(src, args, &k, why, whysize);
	*value = k.nrecords ? k.records[0].value : 0;
	fake_kernel_reset(&k);
	return rc == 0 && k.nrecords == 1;
}

int d_fire_over(const char *src, void *memory, size_t size, struct fake_value *recs,
		unsigned max, unsigned *n, char *why, size_t whysize)
{
	static const int64_t no_args[D_NARGS];
	struct fake_kernel *k = calloc(1, sizeof(*k));
	if (!k)
		abort();
	fake_kernel_init(k);
	k->memory = memory;
	k->memory_size = size;
	int rc = d_run(src, no_args, k, why, whysize);
	for (*n = 0; *n < k->nrecords && *n < max; ++*n)
		recs[*n] = k->records[*n];
	fake_kernel_reset(k);
	free(k);
	return rc;
}

int d_fire_once(const char *src, struct fake_value *recs, unsigned max, unsigned *n, char *why,
		size_t whysize)
{
	return d_fire_over(src, NULL, 0, recs, max, n, why, whysize);
}
