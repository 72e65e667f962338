// SPDX-License-Identifier: BSD-2-Clause
/*
 * The reference evaluator's variables, with D's storage rules:
 * - global scalars live for the whole session, clause-locals (this->)
 *   for one probe firing (every clause of it), self-> variables per
 *   thread, associative arrays (global or per thread) per key tuple;
 * - a variable never stored, or stored 0 or NULL, reads as 0 or "";
 * - an array's integer keys are converted to the key types of its
 *   signature (its declaration, else its first use), as DTrace converts
 *   a tuple to the array's prototype, so a[(uint8_t)300] and a[44] are
 *   one element; a string key is its bytes (at most strsize - 1), and a
 *   NULL string key is an invalid address.
 *
 * Dynamic variables are kept by an encoding of their own (scope, id,
 * thread, tagged key items) in a chained hash: nothing here mirrors how
 * the kernel lays out its keys.
 */
#include <stdlib.h>
#include <string.h>
#include "dref_eval.h"

#define KEY_MAX (16 + DT_MAX_KEYS * (2 + DREF_STRMAX))

static void zero_value(struct dref_value *v, struct dt_type t)
{
	memset(v, 0, sizeof(*v));
	v->kind = t.kind == DT_TYPE_STRING ? DREF_STR : DREF_INT;
}

void dref_vars_init(struct dref_eval *e)
{
	const struct dt_program *p = e->prog;
	e->globals = calloc((size_t)p->nvars[DT_SCOPE_GLOBAL] + 1, sizeof(*e->globals));
	e->locals = calloc((size_t)p->nvars[DT_SCOPE_CLAUSE] + 1, sizeof(*e->locals));
	if (!e->globals || !e->locals)
		abort();
	for (const struct dt_var *v = p->vars; v; v = v->next)
		if (v->scope == DT_SCOPE_GLOBAL && !v->is_array)
			zero_value(&e->globals[v->id], v->type);
	memset(&e->dyn, 0, sizeof(e->dyn));
	dref_locals_clear(e);
}

void dref_vars_free(struct dref_eval *e)
{
	for (unsigned i = 0; i < e->dyn.n; i++)
		free(e->dyn.v[i].key);
	free(e->dyn.v);
	free(e->dyn.bucket);
	free(e->dyn.next);
	free(e->globals);
	free(e->locals);
}

void dref_locals_clear(struct dref_eval *e)
{
	for (const struct dt_var *v = e->prog->vars; v; v = v->next)
		if (v->scope == DT_SCOPE_CLAUSE)
			zero_value(&e->locals[v->id], v->type);
}

bool dref_var_keys(struct dref_eval *e, const struct dt_node *n, struct dref_value *keys)
{
	if (n->kind != DT_N_ARRAY)
		return true;
	const struct dt_var *var = n->ref.var;
	int i = 0;
	for (const struct dt_node *k = n->args; k; k = k->next, i++) {
		if (i >= var->nkeys)
			return dref_unsupported(e, "more keys than the array's signature");
		if (!dref_eval_expr(e, k, &keys[i]))
			return false;
		if (keys[i].kind == DREF_INT)
			dref_int_value(&keys[i], var->keys[i], keys[i].i);
	}
	return true;
}

/* The encoded name of a dynamic variable; 0 after a fault (a NULL string key). */
static uint32_t encode(struct dref_eval *e, const struct dt_node *n, const struct dref_value *keys,
		       uint8_t *out)
{
	const struct dt_var *var = n->ref.var;
	uint32_t len = 0;
	out[len++] = (uint8_t)var->scope;
	memcpy(out + len, &var->id, sizeof(var->id));
	len += sizeof(var->id);
	if (var->scope == DT_SCOPE_THREAD) {
		uint64_t tid = e->sc->threads[e->f->thread].tid;
		memcpy(out + len, &tid, 8);
		len += 8;
	}
	for (int i = 0; n->kind == DT_N_ARRAY && i < n->nargs; i++) {
		if (keys[i].kind == DREF_INT) {
			out[len++] = 'i';
			memcpy(out + len, &keys[i].i, 8);
			len += 8;
			continue;
		}
		if (keys[i].null) {
			dref_fail(e, DIF_FAULT_BADADDR, 0);
			return 0;
		}
		size_t sl = strlen(keys[i].s) + 1;
		out[len++] = 's';
		memcpy(out + len, keys[i].s, sl);
		len += (uint32_t)sl;
	}
	return len;
}

static uint32_t hash_bytes_fnv(const uint8_t *k, uint32_t len)
{
	uint64_t h = 1469598103934665603ull;
	for (uint32_t i = 0; i < len; i++)
		h = (h ^ k[i]) * 1099511628211ull;
	return (uint32_t)(h ^ (h >> 32));
}

static struct dref_dynvar *dyn_find(struct dref_dynmap *m, const uint8_t *key, uint32_t len)
{
	if (!m->nbuckets)
		return NULL;
	uint32_t h = hash_bytes_fnv(key, len);
	for (uint32_t i = m->bucket[h & (m->nbuckets - 1)]; i; i = m->next[i - 1])
		if (m->v[i - 1].keylen == len && !memcmp(m->v[i - 1].key, key, len))
			return &m->v[i - 1];
	return NULL;
}

static struct dref_dynvar *dyn_add(struct dref_dynmap *m, const uint8_t *key, uint32_t len)
{
	if (m->n == m->cap) {
		m->cap = m->cap ? 2 * m->cap : 64;
		m->v = realloc(m->v, m->cap * sizeof(*m->v));
		m->next = realloc(m->next, m->cap * sizeof(*m->next));
		free(m->bucket);
		m->nbuckets = 2 * m->cap;
		m->bucket = calloc(m->nbuckets, sizeof(*m->bucket));
		if (!m->v || !m->next || !m->bucket)
			abort();
		for (unsigned i = 0; i < m->n; i++) {
			uint32_t b = hash_bytes_fnv(m->v[i].key, m->v[i].keylen) & (m->nbuckets - 1);
			m->next[i] = m->bucket[b];
			m->bucket[b] = i + 1;
		}
	}
	struct dref_dynvar *d = &m->v[m->n];
	d->key = malloc(len);
	if (!d->key)
		abort();
	memcpy(d->key, key, len);
	d->keylen = len;
	uint32_t b = hash_bytes_fnv(key, len) & (m->nbuckets - 1);
	m->next[m->n] = m->bucket[b];
	m->bucket[b] = ++m->n;
	return d;
}

static bool is_dynamic(const struct dt_var *var)
{
	return var->is_array || var->scope == DT_SCOPE_THREAD;
}

bool dref_var_load(struct dref_eval *e, const struct dt_node *n, const struct dref_value *keys,
		   struct dref_value *v)
{
	const struct dt_var *var = n->ref.var;
	if (!is_dynamic(var)) {
		*v = var->scope == DT_SCOPE_GLOBAL ? e->globals[var->id] : e->locals[var->id];
		return true;
	}
	uint8_t key[KEY_MAX];
	uint32_t len = encode(e, n, keys, key);
	if (!len)
		return false;
	const struct dref_dynvar *d = dyn_find(&e->dyn, key, len);
	if (d)
		*v = d->value;
	else
		zero_value(v, var->type);
	return true;
}

bool dref_var_store(struct dref_eval *e, const struct dt_node *n, const struct dref_value *keys,
		    const struct dref_value *v)
{
	const struct dt_var *var = n->ref.var;
	struct dref_value stored = *v;
	if (stored.kind == DREF_STR && stored.null)
		stored.null = false;	/* NULL stores as "", which reads back equal to NULL */
	if (!is_dynamic(var)) {
		if (var->scope == DT_SCOPE_GLOBAL)
			e->globals[var->id] = stored;
		else
			e->locals[var->id] = stored;
		return true;
	}
	uint8_t key[KEY_MAX];
	uint32_t len = encode(e, n, keys, key);
	if (!len)
		return false;
	struct dref_dynvar *d = dyn_find(&e->dyn, key, len);
	if (!d)
		d = dyn_add(&e->dyn, key, len);
	d->value = stored;	/* 0 or "" is the element deleted: it reads the same */
	return true;
}
