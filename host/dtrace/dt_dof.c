// SPDX-License-Identifier: BSD-2-Clause
/*
 * The trace object's bytes: dt_dof_write lays out a generated object
 * (struct dt_object) exactly as scion/dof.h specifies: little-endian,
 * packed, header, options, programs, aggregations, clauses.
 *
 * The writer runs twice over the same code, first only counting bytes,
 * then storing them into one arena allocation of exactly that size, so
 * the two passes cannot disagree and nothing is reallocated. The
 * object's limits were checked while generating (dt_cg_clause.c); only
 * the total size is checked here.
 */
#include <string.h>
#include "dt_cg.h"

struct out {
	uint8_t *buf;		/* NULL: count only */
	size_t len;
};

static void put_bytes(struct out *o, const void *p, size_t n)
{
	if (o->buf && n)
		memcpy(o->buf + o->len, p, n);
	o->len += n;
}

static void put_le(struct out *o, uint64_t v, unsigned bytes)
{
	uint8_t b[8];
	for (unsigned i = 0; i < bytes; i++)
		b[i] = (uint8_t)(v >> (8 * i));
	put_bytes(o, b, bytes);
}

static void put_u8(struct out *o, uint8_t v) { put_le(o, v, 1); }
static void put_u16(struct out *o, uint16_t v) { put_le(o, v, 2); }
static void put_u32(struct out *o, uint32_t v) { put_le(o, v, 4); }
static void put_u64(struct out *o, uint64_t v) { put_le(o, v, 8); }

static void put_options(struct out *o, const struct dt_object *obj)
{
	uint32_t n = 0;
	for (int id = 0; id < DOF_OPT_LIMIT; id++)
		n += obj->option_set[id];
	put_u32(o, n);
	for (int id = 0; id < DOF_OPT_LIMIT; id++) {
		if (!obj->option_set[id])
			continue;
		put_u16(o, (uint16_t)id);
		put_u16(o, 0);
		put_u64(o, obj->option[id]);
	}
}

static void put_prog(struct out *o, const struct dif_prog *p)
{
	put_u32(o, p->ninsns);
	for (uint32_t i = 0; i < p->ninsns; i++) {
		const struct dif_insn *in = &p->insns[i];
		put_u8(o, in->op);
		put_u8(o, in->rd);
		put_u8(o, in->r1);
		put_u8(o, in->r2);
		put_u32(o, (uint32_t)in->imm);
	}
	put_u32(o, p->nints);
	for (uint32_t i = 0; i < p->nints; i++)
		put_u64(o, p->ints[i]);
	put_u32(o, p->strtab_len);
	put_bytes(o, p->strtab, p->strtab_len);
	put_u32(o, p->nvars);
	for (uint32_t i = 0; i < p->nvars; i++) {
		const struct dif_var *v = &p->vars[i];
		put_u16(o, v->id);
		put_u8(o, v->scope);
		put_u8(o, v->kind);
		put_u8(o, v->type);
		put_u8(o, v->nkeys);
		put_u16(o, v->size);
	}
	put_u8(o, p->rtype);
	put_u8(o, 0);
	put_u16(o, p->rsize);
	put_u16(o, p->strsize);
}

/*
 * A string key is declared as strsize bytes, what the kernel copies of it
 * (strsize - 1 and the NUL, as everywhere else), though it takes strsize
 * rounded up to 8 in the key (ac->keys[i].size, the consumer's layout):
 * declaring the rounded size let a string the program had not cut (a
 * built-in, a literal) keep up to 7 more bytes as a key than as any other
 * value, so @[execname] and @[strjoin(execname, "")] were two entries.
 */
static void put_agg(struct out *o, const struct dt_agg_code *ac, uint16_t strsize)
{
	const struct dt_agg *a = ac->agg;
	bool lq = ac->func == DOF_AGG_LQUANTIZE || ac->func == DOF_AGG_LLQUANTIZE;
	put_u8(o, ac->func);
	put_u8(o, (uint8_t)ac->nkeys);
	put_u16(o, 0);
	for (int i = 0; i < ac->nkeys; i++) {
		put_u8(o, ac->keys[i].kind == DT_DATUM_STRING ? DIF_TYPE_STRING :
			  ac->keys[i].kind == DT_DATUM_STACK ? DOF_KEY_STACK : DIF_TYPE_INT);
		put_u8(o, 0);
		put_u16(o, ac->keys[i].kind == DT_DATUM_STRING ? strsize :
			   (uint16_t)ac->keys[i].size);
	}
	put_u64(o, lq ? (uint64_t)a->lq_low : 0);
	put_u64(o, lq ? (uint64_t)a->lq_high : 0);
	put_u64(o, lq ? (uint64_t)a->lq_step : 0);
}

static void put_string(struct out *o, const char *s)
{
	size_t n = strlen(s);
	put_u16(o, (uint16_t)n);
	put_bytes(o, s, n);
}

static void put_clause(struct out *o, const struct dt_clause_code *cc)
{
	const struct dt_clause *c = cc->clause;
	put_u16(o, (uint16_t)c->nprobes);
	put_u16(o, cc->flags);
	for (const struct dt_probedesc *d = c->probes; d; d = d->next) {
		put_string(o, d->provider);
		put_string(o, d->module);
		put_string(o, d->function);
		put_string(o, d->name);
	}
	put_u32(o, cc->predicate);
	put_u16(o, (uint16_t)cc->nkactions);
	put_u16(o, 0);
	for (int i = 0; i < cc->nkactions; i++) {
		const struct dt_kaction *k = &cc->kactions[i];
		put_u16(o, k->kind);
		put_u16(o, k->nprogs);
		put_u32(o, k->arg);
		for (int j = 0; j < k->nprogs; j++)
			put_u32(o, k->progs[j]);
	}
}

static void put_object(struct out *o, const struct dt_object *obj)
{
	put_u32(o, DOF_MAGIC);
	put_u16(o, DOF_VERSION);
	put_u16(o, 0);
	put_options(o, obj);
	put_u32(o, obj->nprogs);
	for (uint32_t i = 0; i < obj->nprogs; i++)
		put_prog(o, &obj->progs[i]);
	put_u32(o, (uint32_t)obj->naggs);
	for (int i = 0; i < obj->naggs; i++)
		put_agg(o, &obj->aggs[i], obj->strsize);
	put_u32(o, (uint32_t)obj->nclauses);
	for (int i = 0; i < obj->nclauses; i++)
		put_clause(o, &obj->clauses[i]);
}

int dt_dof_write(struct dt_ctx *ctx, struct dt_object *obj)
{
	struct out o = { 0 };
	put_object(&o, obj);
	if (o.len > DOF_MAX_OBJECT) {
		const struct dt_program *p = obj->program;
		dt_error(ctx, (struct dt_loc){ p->filename ? p->filename : "<input>", 0, 0 },
			 D_CG_EXPR, "the trace object is %zu bytes: the kernel loads at most %u",
			 o.len, DOF_MAX_OBJECT);
		return -1;
	}
	uint8_t *buf = dt_alloc(ctx, o.len);
	o = (struct out){ .buf = buf };
	put_object(&o, obj);
	obj->bytes = buf;
	obj->size = o.len;
	return 0;
}
