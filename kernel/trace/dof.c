// SPDX-License-Identifier: BSD-2-Clause
/*
 * Loading a trace object (scion/dof.h): every byte comes from the host
 * and is checked before anything runs. A reader with bounds checks
 * takes the object apart; each program goes through dif_verify; each
 * action is checked against the programs and aggregations it names;
 * each variable must have one kind, type and key count across all the
 * programs (its size is the largest any program gives). The first
 * problem refuses the whole object with one line.
 */
#include <scion/mm.h>
#include <scion/string.h>
#include <scion/format.h>
#include <scion/errno.h>
#include <scion/chan_proto.h>
#include <scion/version.h>
#include <scion/dif_jit.h>
#include "trace_internal.h"

struct reader {
	const uint8_t *p, *end;
	bool short_read;
};

static uint64_t get(struct reader *r, unsigned bytes)
{
	uint64_t v = 0;
	if ((size_t)(r->end - r->p) < bytes) {
		r->short_read = true;
		r->p = r->end;
		return 0;
	}
	v = chan_get_le(r->p, bytes);
	r->p += bytes;
	return v;
}

#define FAIL(...) do { snprintf(why, whylen, __VA_ARGS__); return -EINVAL; } while (0)

static const struct {
	uint64_t def, min, max;
	const char *name;
} option_rules[DOF_OPT_LIMIT] = {
	[DOF_OPT_NSPEC] = { DOF_NSPEC_DEFAULT, DOF_NSPEC_MIN, DOF_NSPEC_MAX, "nspec" },
	[DOF_OPT_SPECSIZE] = { DOF_SPECSIZE_DEFAULT, DOF_SPECSIZE_MIN, DOF_SPECSIZE_MAX,
			       "specsize" },
	[DOF_OPT_DYNVARSIZE] = { DOF_DYNVARSIZE_DEFAULT, DOF_DYNVARSIZE_MIN, DOF_DYNVARSIZE_MAX,
				 "dynvarsize" },
	[DOF_OPT_AGGSIZE] = { DOF_AGGSIZE_DEFAULT, DOF_AGGSIZE_MIN, DOF_AGGSIZE_MAX, "aggsize" },
	[DOF_OPT_BUFPOLICY] = { DOF_BUFPOLICY_SWITCH, DOF_BUFPOLICY_SWITCH, DOF_BUFPOLICY_RING,
				"bufpolicy" },
	[DOF_OPT_ZDEFS] = { 0, 0, 1, "zdefs" },
	[DOF_OPT_DESTRUCTIVE] = { 0, 0, 1, "destructive" },
	[DOF_OPT_KTYPES] = { 0, 1, UINT64_MAX, "ktypes" },
	[DOF_OPT_NOJIT] = { 0, 0, 1, "nojit" },
};

static int read_options(struct reader *r, struct trace_object *o, char *why, size_t whylen)
{
	for (unsigned i = 1; i < DOF_OPT_LIMIT; i++)
		o->option[i] = option_rules[i].def;
	uint32_t n = (uint32_t)get(r, 4);
	if (n >= DOF_OPT_LIMIT * 2)
		FAIL("%u options: more than there are", n);
	for (uint32_t i = 0; i < n && !r->short_read; i++) {
		uint16_t id = (uint16_t)get(r, 2);
		uint16_t zero = (uint16_t)get(r, 2);
		uint64_t v = get(r, 8);
		if (id == 0 || id >= DOF_OPT_LIMIT || zero)
			FAIL("option %u: no such option", id);
		if (v < option_rules[id].min || v > option_rules[id].max)
			FAIL("option %s=%llu: give %llu to %llu", option_rules[id].name,
			     (unsigned long long)v, (unsigned long long)option_rules[id].min,
			     (unsigned long long)option_rules[id].max);
		o->option[id] = v;
		o->option_given[id] = true;
	}
	/* Offsets and types from other types would read the wrong memory: refuse them. */
	if (o->option_given[DOF_OPT_KTYPES] && o->option[DOF_OPT_KTYPES] != kernel_ctf_id)
		FAIL("the program was compiled against another kernel's types (%016llx, this "
		     "kernel's are %016llx): compile it with this build's kernel.ctf",
		     (unsigned long long)o->option[DOF_OPT_KTYPES],
		     (unsigned long long)kernel_ctf_id);
	return 0;
}

/* Record v's storage rules; a second use must agree with the first. */
static int note_var(struct trace_object *o, const struct dif_var *v, unsigned prog, char *why,
		    size_t whylen)
{
	struct trace_var *table = v->scope == DIF_SCOPE_GLOBAL ? o->globals :
				  v->scope == DIF_SCOPE_THREAD ? o->thread_vars : o->locals;
	struct trace_var *t = &table[v->id];
	uint16_t size = v->type == DIF_TYPE_INT ? 8 : v->size;

	if (v->type == DIF_TYPE_STRING && (v->size < 1 || v->size > DIF_STRSIZE_MAX))
		FAIL("program %u: variable %u: string size %u", prog, v->id, v->size);
	if (v->type == DIF_TYPE_BYREF && (v->size < 1 || v->size > DIF_BYREF_MAX))
		FAIL("program %u: variable %u: held by reference, %u bytes", prog, v->id, v->size);
	if (!t->used) {
		*t = (struct trace_var){ .used = true, .kind = v->kind, .type = v->type,
					 .nkeys = v->nkeys, .size = size };
		return 0;
	}
	if (t->kind != v->kind || t->type != v->type || t->nkeys != v->nkeys)
		FAIL("program %u: variable %u is used with two different types", prog, v->id);
	if (size > t->size)
		t->size = size;
	return 0;
}

static int read_prog(struct reader *r, struct trace_object *o, unsigned index, char *why,
		     size_t whylen)
{
	struct dif_prog *p = &o->progs[index];
	char reason[96];

	uint32_t ninsns = (uint32_t)get(r, 4);
	if (r->short_read || ninsns == 0 || ninsns > DIF_MAX_INSNS ||
	    (size_t)(r->end - r->p) / 8 < ninsns)
		FAIL("program %u: %u instructions (1 to %u, within the object)", index, ninsns,
		     DIF_MAX_INSNS);
	struct dif_insn *insns = kmalloc(ninsns * sizeof(*insns));
	if (!insns)
		FAIL("program %u: no memory", index);
	p->insns = insns;
	p->ninsns = ninsns;
	for (uint32_t i = 0; i < ninsns; i++) {
		insns[i].op = (uint8_t)get(r, 1);
		insns[i].rd = (uint8_t)get(r, 1);
		insns[i].r1 = (uint8_t)get(r, 1);
		insns[i].r2 = (uint8_t)get(r, 1);
		insns[i].imm = (int32_t)(uint32_t)get(r, 4);
	}
	uint32_t nints = (uint32_t)get(r, 4);
	if (nints > DIF_MAX_INTS || (size_t)(r->end - r->p) / 8 < nints)
		FAIL("program %u: %u constants (at most %u, within the object)", index, nints,
		     DIF_MAX_INTS);
	if (nints) {
		uint64_t *ints = kmalloc(nints * sizeof(*ints));
		if (!ints)
			FAIL("program %u: no memory", index);
		for (uint32_t i = 0; i < nints; i++)
			ints[i] = get(r, 8);
		p->ints = ints;
		p->nints = nints;
	}
	uint32_t strtab_len = (uint32_t)get(r, 4);
	if (strtab_len > DIF_MAX_STRTAB || (size_t)(r->end - r->p) < strtab_len)
		FAIL("program %u: string table of %u bytes (at most %u, within the object)", index,
		     strtab_len, DIF_MAX_STRTAB);
	if (strtab_len) {
		char *strtab = kmalloc(strtab_len);
		if (!strtab)
			FAIL("program %u: no memory", index);
		memcpy(strtab, r->p, strtab_len);
		r->p += strtab_len;
		p->strtab = strtab;
		p->strtab_len = strtab_len;
	}
	uint32_t nvars = (uint32_t)get(r, 4);
	if (nvars > DIF_MAX_VARS || (size_t)(r->end - r->p) / 8 < nvars)
		FAIL("program %u: %u variables (at most %u, within the object)", index, nvars,
		     DIF_MAX_VARS);
	if (nvars) {
		struct dif_var *vars = kmalloc(nvars * sizeof(*vars));
		if (!vars)
			FAIL("program %u: no memory", index);
		for (uint32_t i = 0; i < nvars; i++) {
			vars[i].id = (uint16_t)get(r, 2);
			vars[i].scope = (uint8_t)get(r, 1);
			vars[i].kind = (uint8_t)get(r, 1);
			vars[i].type = (uint8_t)get(r, 1);
			vars[i].nkeys = (uint8_t)get(r, 1);
			vars[i].size = (uint16_t)get(r, 2);
		}
		p->vars = vars;
		p->nvars = nvars;
	}
	p->rtype = (uint8_t)get(r, 1);
	uint8_t zero = (uint8_t)get(r, 1);
	p->rsize = (uint16_t)get(r, 2);
	p->strsize = (uint16_t)get(r, 2);
	if (r->short_read)
		FAIL("program %u: the object ends inside it", index);
	if (zero)
		FAIL("program %u: reserved byte is %u", index, zero);
	if (dif_verify(p, reason, sizeof(reason)))
		FAIL("program %u: %s", index, reason);
	for (uint32_t i = 0; i < p->nvars; i++) {
		if (p->vars[i].id >= DIF_MAX_VARS)
			FAIL("program %u: variable id %u", index, p->vars[i].id);
		int err = note_var(o, &p->vars[i], index, why, whylen);
		if (err)
			return err;
	}
	return 0;
}

static int read_agg(struct reader *r, struct trace_agg *a, unsigned index, char *why,
		    size_t whylen)
{
	a->func = (uint8_t)get(r, 1);
	a->nkeys = (uint8_t)get(r, 1);
	uint16_t zero = (uint16_t)get(r, 2);
	if (a->func == 0 || a->func >= DOF_AGG_LIMIT || zero)
		FAIL("aggregation %u: no such function %u", index, a->func);
	if (a->nkeys > DIF_MAX_TUPLE)
		FAIL("aggregation %u: %u keys (at most %u)", index, a->nkeys, DIF_MAX_TUPLE);
	a->keybytes = 0;
	a->nkeyprogs = 0;
	for (unsigned k = 0; k < a->nkeys; k++) {
		a->key_type[k] = (uint8_t)get(r, 1);
		uint8_t z = (uint8_t)get(r, 1);
		a->key_size[k] = (uint16_t)get(r, 2);
		uint16_t size = a->key_size[k];
		bool ok = !z && ((a->key_type[k] == DIF_TYPE_INT && size == 8) ||
				 (a->key_type[k] == DIF_TYPE_STRING && size >= 1 &&
				  size <= DIF_STRSIZE_MAX) ||
				 (a->key_type[k] == DOF_KEY_STACK && size % 8 == 0 && size >= 8 &&
				  size <= DOF_MAX_FRAMES * 8));
		a->nkeyprogs += a->key_type[k] != DOF_KEY_STACK;
		if (!ok)
			FAIL("aggregation %u: key %u: type %u of %u bytes", index, k, a->key_type[k],
			     a->key_size[k]);
		a->keybytes += (a->key_size[k] + 7u) & ~7u;
	}
	if (a->keybytes > DOF_MAX_KEYBYTES)
		FAIL("aggregation %u: keys of %u bytes (at most %u)", index, a->keybytes,
		     DOF_MAX_KEYBYTES);
	a->lq_low = (int64_t)get(r, 8);
	a->lq_high = (int64_t)get(r, 8);
	a->lq_step = (int64_t)get(r, 8);
	a->nvalues = a->func == DOF_AGG_COUNT ? 0 : 1;
	switch (a->func) {
	case DOF_AGG_AVG: a->valbytes = 16; break;
	case DOF_AGG_STDDEV: a->valbytes = 32; break;
	case DOF_AGG_QUANTIZE: a->valbytes = DOF_QUANTIZE_BUCKETS * 8; break;
	case DOF_AGG_LQUANTIZE: {
		if (a->lq_step <= 0 || a->lq_low >= a->lq_high ||
		    (uint64_t)(a->lq_high - a->lq_low) / (uint64_t)a->lq_step == 0 ||
		    (uint64_t)(a->lq_high - a->lq_low) / (uint64_t)a->lq_step > DOF_LQUANTIZE_MAX_LEVELS)
			FAIL("aggregation %u: lquantize(%lld, %lld, %lld): give low < high and at "
			     "most %u steps", index, (long long)a->lq_low, (long long)a->lq_high,
			     (long long)a->lq_step, DOF_LQUANTIZE_MAX_LEVELS);
		uint64_t levels = (uint64_t)(a->lq_high - a->lq_low) / (uint64_t)a->lq_step;
		a->valbytes = (uint32_t)(levels + 2) * 8;
		break;
	}
	case DOF_AGG_LLQUANTIZE: {
		uint64_t factor = DOF_LLQ_FACTOR(a->lq_step), nsteps = DOF_LLQ_NSTEPS(a->lq_step);
		if (a->lq_low < 0 || a->lq_high < 0 || a->lq_step < 0 || a->lq_step >> 32 ||
		    !dof_llquantize_valid(factor, (uint64_t)a->lq_low, (uint64_t)a->lq_high, nsteps))
			FAIL("aggregation %u: llquantize(%llu, %lld, %lld, %llu): give factor >= 2, "
			     "low < high, nsteps a multiple of factor dividing a power of it, and "
			     "factor^(high + 2) within 64 bits", index, (unsigned long long)factor,
			     (long long)a->lq_low, (long long)a->lq_high, (unsigned long long)nsteps);
		uint32_t n = dof_llquantize_buckets((uint16_t)factor, (uint16_t)a->lq_low,
						    (uint16_t)a->lq_high, (uint16_t)nsteps);
		if (n > DOF_LLQUANTIZE_MAX_BUCKETS)
			FAIL("aggregation %u: llquantize of %u buckets (at most %u)", index, n,
			     DOF_LLQUANTIZE_MAX_BUCKETS);
		a->valbytes = n * 8;
		break;
	}
	default: a->valbytes = 8; break;
	}
	if (a->func != DOF_AGG_LQUANTIZE && a->func != DOF_AGG_LLQUANTIZE &&
	    (a->lq_low || a->lq_high || a->lq_step))
		FAIL("aggregation %u: (l)lquantize constants on another function", index);
	return r->short_read ? (snprintf(why, whylen, "aggregation %u: the object ends inside it",
					 index), -EINVAL) : 0;
}

static int read_desc(struct reader *r, char out[DOF_MAX_PROBEDESC + 1], const char **reason)
{
	uint16_t len = (uint16_t)get(r, 2);
	if (r->short_read || len > DOF_MAX_PROBEDESC || (size_t)(r->end - r->p) < len) {
		*reason = "a probe description part is too long or runs past the object";
		return -EINVAL;
	}
	memcpy(out, r->p, len);
	out[len] = '\0';
	r->p += len;
	for (uint16_t i = 0; i < len; i++) {
		if (out[i] < 0x21 || out[i] > 0x7e || out[i] == ':') {
			*reason = "a probe description part holds a blank, a colon or a control byte";
			return -EINVAL;
		}
	}
	return 0;
}

/* Check action a of clause c (program types, counts) and place its data. */
static int check_action(const struct trace_object *o, struct trace_clause *c, unsigned ci,
			unsigned ai, uint32_t *offset, char *why, size_t whylen)
{
	struct trace_action *a = &c->actions[ai];
	unsigned want;
	switch (a->kind) {
	case DOF_ACT_STACK:
	case DOF_ACT_PANIC:
	case DOF_ACT_BREAKPOINT:
	case DOF_ACT_STOP:
	case DOF_ACT_PAUSE: want = 0; break;
	case DOF_ACT_AGGREGATE: {
		if (a->arg >= o->naggs)
			FAIL("clause %u action %u: no aggregation %u", ci, ai + 1, a->arg);
		const struct trace_agg *g = &o->aggs[a->arg];
		want = g->nkeyprogs + g->nvalues;
		/* (l)quantize may carry its increment as one more program. */
		bool weighable = g->func == DOF_AGG_QUANTIZE || g->func == DOF_AGG_LQUANTIZE ||
				 g->func == DOF_AGG_LLQUANTIZE;
		if (weighable && a->nprogs == want + 1)
			want++;
		break;
	}
	default: want = 1; break;
	}
	if (a->nprogs != want)
		FAIL("clause %u action %u: %u programs where it takes %u", ci, ai + 1, a->nprogs, want);
	for (unsigned k = 0, key = 0; k < a->nprogs; k++) {
		uint8_t need = DIF_TYPE_INT;
		if (a->kind == DOF_ACT_RECORD || a->kind == DOF_ACT_EXPR) {
			need = a->progs[k]->rtype;
		} else if (a->kind == DOF_ACT_AGGREGATE && k < o->aggs[a->arg].nkeyprogs) {
			const struct trace_agg *g = &o->aggs[a->arg];
			while (g->key_type[key] == DOF_KEY_STACK)	/* key programs skip stacks */
				key++;
			need = g->key_type[key++];
		}
		if (a->progs[k]->rtype != need)
			FAIL("clause %u action %u: program %u returns the wrong type", ci, ai + 1, k);
	}
	bool destructive = a->kind == DOF_ACT_CHILL || a->kind == DOF_ACT_RAISE ||
			   a->kind == DOF_ACT_PANIC || a->kind == DOF_ACT_BREAKPOINT ||
			   a->kind == DOF_ACT_STOP || a->kind == DOF_ACT_PAUSE;
	if (destructive && !o->option[DOF_OPT_DESTRUCTIVE])
		FAIL("could not enable tracing: Destructive actions not allowed (clause %u action "
		     "%u; allow them with -w)", ci, ai + 1);
	if (a->kind == DOF_ACT_SPECULATE && ai != 0)
		FAIL("clause %u action %u: speculate() must come first", ci, ai + 1);
	if (a->kind == DOF_ACT_AGGREGATE && c->speculative)
		FAIL("clause %u action %u: aggregation in a speculative clause", ci, ai + 1);
	if (a->kind == DOF_ACT_STACK && (a->arg < 1 || a->arg > DOF_MAX_FRAMES))
		FAIL("clause %u action %u: stack of %u frames (1 to %u)", ci, ai + 1, a->arg,
		     DOF_MAX_FRAMES);
	if (a->kind != DOF_ACT_STACK && a->kind != DOF_ACT_AGGREGATE && a->arg)
		FAIL("clause %u action %u: argument %u where none is taken", ci, ai + 1, a->arg);
	a->size = 0;
	if (a->kind == DOF_ACT_RECORD)
		a->size = a->progs[0]->rtype == DIF_TYPE_INT ? 8 : a->progs[0]->rsize;
	else if (a->kind == DOF_ACT_EXIT)
		a->size = 8;
	else if (a->kind == DOF_ACT_STACK)
		a->size = a->arg * 8;
	if (a->size && a->progs && a->progs[0]->rtype == DIF_TYPE_STRING &&
	    (a->size < 1 || a->size > DIF_STRSIZE_MAX))
		FAIL("clause %u action %u: string record of %u bytes", ci, ai + 1, a->size);
	if (a->size) {
		if (!(c->flags & DOF_CLAUSE_RECORD))
			FAIL("clause %u action %u: records data in a clause that writes no record",
			     ci, ai + 1);
		a->offset = *offset;
		*offset = (*offset + a->size + 7u) & ~7u;
		c->padded |= (a->size & 7u) != 0;
	}
	return 0;
}

static int read_clause(struct reader *r, struct trace_object *o, unsigned ci, char *why,
		       size_t whylen)
{
	struct trace_clause *c = &o->clauses[ci];
	const char *reason;

	c->nprobes = (uint32_t)get(r, 2);
	c->flags = (uint32_t)get(r, 2);
	if (c->nprobes == 0 || c->nprobes > DOF_MAX_PROBEDESCS ||
	    (c->flags & ~(uint32_t)DOF_CLAUSE_RECORD))
		FAIL("clause %u: %u probe descriptions (1 to %u), flags 0x%x", ci, c->nprobes,
		     DOF_MAX_PROBEDESCS, c->flags);
	c->desc = kmalloc(c->nprobes * sizeof(*c->desc));
	if (!c->desc)
		FAIL("clause %u: no memory", ci);
	for (uint32_t i = 0; i < c->nprobes; i++)
		for (unsigned part = 0; part < 4; part++)
			if (read_desc(r, c->desc[i][part], &reason))
				FAIL("clause %u: %s", ci, reason);
	uint32_t pred = (uint32_t)get(r, 4);
	if (pred != DOF_NONE) {
		if (pred >= o->nprogs || o->progs[pred].rtype != DIF_TYPE_INT)
			FAIL("clause %u: predicate program %u", ci, pred);
		c->predicate = &o->progs[pred];
	}
	c->nactions = (uint32_t)get(r, 2);
	uint16_t zero = (uint16_t)get(r, 2);
	if (c->nactions > DOF_MAX_ACTIONS || zero || r->short_read)
		FAIL("clause %u: %u actions (at most %u)", ci, c->nactions, DOF_MAX_ACTIONS);
	c->actions = kzalloc((c->nactions ? c->nactions : 1) * sizeof(*c->actions));
	if (!c->actions)
		FAIL("clause %u: no memory", ci);
	uint32_t offset = sizeof(struct dof_rechdr);
	for (uint32_t ai = 0; ai < c->nactions; ai++) {
		struct trace_action *a = &c->actions[ai];
		a->kind = (uint16_t)get(r, 2);
		a->nprogs = (uint16_t)get(r, 2);
		a->arg = (uint32_t)get(r, 4);
		if (a->kind == 0 || a->kind >= DOF_ACT_LIMIT || a->nprogs > DIF_MAX_TUPLE + 1 ||
		    r->short_read)
			FAIL("clause %u action %u: kind %u with %u programs", ci, ai + 1, a->kind,
			     a->nprogs);
		if (ai == 0 && a->kind == DOF_ACT_SPECULATE)
			c->speculative = true;
		c->writes_principal |= a->kind == DOF_ACT_COMMIT;
		if (a->nprogs) {
			a->progs = kmalloc(a->nprogs * sizeof(*a->progs));
			if (!a->progs)
				FAIL("clause %u: no memory", ci);
		}
		for (unsigned k = 0; k < a->nprogs; k++) {
			uint32_t pi = (uint32_t)get(r, 4);
			if (pi >= o->nprogs)
				FAIL("clause %u action %u: no program %u", ci, ai + 1, pi);
			a->progs[k] = &o->progs[pi];
		}
		int err = check_action(o, c, ci, ai, &offset, why, whylen);
		if (err)
			return err;
	}
	if (offset > DOF_MAX_RECORD)
		FAIL("clause %u: a record of %u bytes (at most %u)", ci, offset, DOF_MAX_RECORD);
	c->record_size = (c->flags & DOF_CLAUSE_RECORD) ? offset : 0;
	if (r->short_read)
		FAIL("clause %u: the object ends inside it", ci);
	return 0;
}

/*
 * Offsets of global scalars and clause-locals in their areas: the
 * variables held by reference first, so that what a program may write
 * in each area is the one range [0, *_byref_bytes).
 */
static void lay_out_vars(struct trace_object *o)
{
	for (int byref = 1; byref >= 0; byref--) {
		for (unsigned i = 0; i < DIF_MAX_VARS; i++) {
			struct trace_var *g = &o->globals[i], *l = &o->locals[i];
			if (g->used && g->kind == DIF_KIND_SCALAR &&
			    (g->type == DIF_TYPE_BYREF) == byref) {
				g->offset = o->globals_bytes;
				o->globals_bytes += (g->size + 7u) & ~7u;
			}
			if (l->used && (l->type == DIF_TYPE_BYREF) == byref) {
				l->offset = o->locals_bytes;
				o->locals_bytes += (l->size + 7u) & ~7u;
			}
		}
		if (byref) {
			o->globals_byref_bytes = o->globals_bytes;
			o->locals_byref_bytes = o->locals_bytes;
		}
	}
}

int dof_load(const uint8_t *data, uint32_t len, struct trace_object *o, char *why,
	     size_t whylen)
{
	struct reader r = { data, data + len, false };
	int err;

	memset(o, 0, sizeof(*o));
	if (len > DOF_MAX_OBJECT)
		FAIL("object of %u bytes (at most %u)", len, DOF_MAX_OBJECT);
	uint32_t magic = (uint32_t)get(&r, 4);
	uint16_t version = (uint16_t)get(&r, 2), zero = (uint16_t)get(&r, 2);
	if (r.short_read || magic != DOF_MAGIC)
		FAIL("not a trace object (magic 0x%08x)", magic);
	if (version != DOF_VERSION || zero)
		FAIL("trace object version %u; this kernel reads %u", version, DOF_VERSION);
	if ((err = read_options(&r, o, why, whylen)))
		goto fail;
	o->nprogs = (uint32_t)get(&r, 4);
	if (o->nprogs > DOF_MAX_PROGS) {
		snprintf(why, whylen, "%u programs (at most %u)", o->nprogs, DOF_MAX_PROGS);
		err = -EINVAL;
		goto fail;
	}
	o->progs = kzalloc((o->nprogs ? o->nprogs : 1) * sizeof(*o->progs));
	if (!o->progs) {
		snprintf(why, whylen, "no memory for %u programs", o->nprogs);
		err = -ENOMEM;
		goto fail;
	}
	for (uint32_t i = 0; i < o->nprogs; i++)
		if ((err = read_prog(&r, o, i, why, whylen)))
			goto fail;
	o->naggs = (uint32_t)get(&r, 4);
	if (o->naggs > DOF_MAX_AGGS) {
		snprintf(why, whylen, "%u aggregations (at most %u)", o->naggs, DOF_MAX_AGGS);
		err = -EINVAL;
		goto fail;
	}
	o->aggs = kzalloc((o->naggs ? o->naggs : 1) * sizeof(*o->aggs));
	if (!o->aggs) {
		err = -ENOMEM;
		snprintf(why, whylen, "no memory");
		goto fail;
	}
	for (uint32_t i = 0; i < o->naggs; i++)
		if ((err = read_agg(&r, &o->aggs[i], i, why, whylen)))
			goto fail;
	o->nclauses = (uint32_t)get(&r, 4);
	if (r.short_read || o->nclauses == 0 || o->nclauses > DOF_MAX_CLAUSES) {
		snprintf(why, whylen, "%u clauses (1 to %u)", o->nclauses, DOF_MAX_CLAUSES);
		err = -EINVAL;
		goto fail;
	}
	o->clauses = kzalloc(o->nclauses * sizeof(*o->clauses));
	if (!o->clauses) {
		err = -ENOMEM;
		snprintf(why, whylen, "no memory");
		goto fail;
	}
	for (uint32_t i = 0; i < o->nclauses; i++)
		if ((err = read_clause(&r, o, i, why, whylen)))
			goto fail;
	if (r.p != r.end) {
		snprintf(why, whylen, "%zu bytes after the last clause", (size_t)(r.end - r.p));
		err = -EINVAL;
		goto fail;
	}
	lay_out_vars(o);
	/* Native code last: only for an object that loaded, unless the consumer said nojit. */
	for (uint32_t i = 0; !o->option[DOF_OPT_NOJIT] && i < o->nprogs; i++)
		if (!dif_jit_compile(&o->progs[i]))
			o->njit++;
	for (uint32_t i = 0; i < o->nclauses; i++) {
		struct trace_clause *c = &o->clauses[i];
		for (uint32_t a = 0; a < c->nactions; a++)
			if (c->actions[a].kind == DOF_ACT_AGGREGATE)
				c->actions[a].key_probe_name =
					trace_key_probe_name(&c->actions[a], &o->aggs[c->actions[a].arg]);
	}
	return 0;
fail:
	dof_free(o);
	return err;
}

void dof_free(struct trace_object *o)
{
	for (uint32_t i = 0; o->progs && i < o->nprogs; i++) {
		dif_jit_release(&o->progs[i]);
		kfree((void *)o->progs[i].insns);
		kfree((void *)o->progs[i].ints);
		kfree((void *)o->progs[i].strtab);
		kfree((void *)o->progs[i].vars);
	}
	for (uint32_t i = 0; o->clauses && i < o->nclauses; i++) {
		struct trace_clause *c = &o->clauses[i];
		for (uint32_t a = 0; c->actions && a < c->nactions; a++)
			kfree(c->actions[a].progs);
		kfree(c->actions);
		kfree(c->desc);
	}
	kfree(o->progs);
	kfree(o->aggs);
	kfree(o->clauses);
	memset(o, 0, sizeof(*o));
}
