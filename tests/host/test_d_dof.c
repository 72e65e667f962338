// SPDX-License-Identifier: BSD-2-Clause
/*
 * Host tests of the trace object (host/dtrace/dt_dof.c, scion/dof.h)
 * and what the consumer is told about it: a reader written here from
 * dof.h alone parses the object's bytes back (every count, program,
 * aggregation, probe description and action, and nothing left over) and
 * the programs it decodes verify and run; record layouts (the 16-byte
 * header, each datum at the next multiple of 8, strsize strings, stack
 * frames) and which clauses record; aggregation keys laid out back to
 * back with their key and value programs run; the JSON document.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "host_test.h"
#include "d_cg_helpers.h"

/* ---- a reader of the object, from scion/dof.h ---- */

struct reader {
	const uint8_t *p;
	size_t len, at;
	bool bad;
};

static uint64_t get(struct reader *r, unsigned bytes)
{
	uint64_t v = 0;
	if (r->bad || bytes > r->len - r->at) {
		r->bad = true;
		return 0;
	}
	for (unsigned i = 0; i < bytes; i++)
		v |= (uint64_t)r->p[r->at + i] << (8 * i);
	r->at += bytes;
	return v;
}

static const uint8_t *get_bytes(struct reader *r, size_t n)
{
	if (r->bad || n > r->len - r->at) {
		r->bad = true;
		return NULL;
	}
	r->at += n;
	return r->p + r->at - n;
}

/* One program decoded into malloc'd tables (freed by free_prog). */
static bool read_prog(struct reader *r, struct dif_prog *p)
{
	memset(p, 0, sizeof(*p));
	p->ninsns = (uint32_t)get(r, 4);
	if (r->bad || p->ninsns > DIF_MAX_INSNS)
		return false;
	struct dif_insn *insns = calloc(p->ninsns + 1, sizeof(*insns));
	for (uint32_t i = 0; i < p->ninsns; i++) {
		insns[i].op = (uint8_t)get(r, 1);
		insns[i].rd = (uint8_t)get(r, 1);
		insns[i].r1 = (uint8_t)get(r, 1);
		insns[i].r2 = (uint8_t)get(r, 1);
		insns[i].imm = (int32_t)(uint32_t)get(r, 4);
	}
	p->insns = insns;
	p->nints = (uint32_t)get(r, 4);
	if (r->bad || p->nints > DIF_MAX_INTS)
		return false;
	uint64_t *ints = calloc(p->nints + 1, sizeof(*ints));
	for (uint32_t i = 0; i < p->nints; i++)
		ints[i] = get(r, 8);
	p->ints = ints;
	p->strtab_len = (uint32_t)get(r, 4);
	const uint8_t *strtab = get_bytes(r, p->strtab_len);
	if (!strtab)
		return false;
	char *copy = malloc(p->strtab_len + 1);
	memcpy(copy, strtab, p->strtab_len);
	p->strtab = copy;
	p->nvars = (uint32_t)get(r, 4);
	if (r->bad || p->nvars > DIF_MAX_VARS)
		return false;
	struct dif_var *vars = calloc(p->nvars + 1, sizeof(*vars));
	for (uint32_t i = 0; i < p->nvars; i++) {
		vars[i].id = (uint16_t)get(r, 2);
		vars[i].scope = (uint8_t)get(r, 1);
		vars[i].kind = (uint8_t)get(r, 1);
		vars[i].type = (uint8_t)get(r, 1);
		vars[i].nkeys = (uint8_t)get(r, 1);
		vars[i].size = (uint16_t)get(r, 2);
	}
	p->vars = vars;
	p->rtype = (uint8_t)get(r, 1);
	bool zero = get(r, 1) == 0;
	p->rsize = (uint16_t)get(r, 2);
	p->strsize = (uint16_t)get(r, 2);
	return !r->bad && zero;
}

static void free_prog(struct dif_prog *p)
{
	free((void *)p->insns);
	free((void *)p->ints);
	free((void *)p->strtab);
	free((void *)p->vars);
}

static bool same_prog(const struct dif_prog *a, const struct dif_prog *b)
{
	return a->ninsns == b->ninsns && !memcmp(a->insns, b->insns, a->ninsns * sizeof(*a->insns)) &&
	       a->nints == b->nints && (!a->nints || !memcmp(a->ints, b->ints, a->nints * 8)) &&
	       a->strtab_len == b->strtab_len &&
	       (!a->strtab_len || !memcmp(a->strtab, b->strtab, a->strtab_len)) &&
	       a->nvars == b->nvars && (!a->nvars || !memcmp(a->vars, b->vars, a->nvars *
							     sizeof(*a->vars))) &&
	       a->rtype == b->rtype && a->rsize == b->rsize && a->strsize == b->strsize;
}

/* A length-prefixed probe description part equal to want. */
static bool part_is(struct reader *r, const char *want)
{
	size_t n = (size_t)get(r, 2);
	const uint8_t *s = get_bytes(r, n);
	return s && n == strlen(want) && !memcmp(s, want, n);
}

/* Parse obj->bytes and compare every field with obj; the first difference goes to t. */
static void read_back(struct host_test_ctx *t, const struct dt_object *obj)
{
	struct reader r = { obj->bytes, obj->size, 0, false };
	char why[200];

	CHECK(t, get(&r, 4) == DOF_MAGIC && get(&r, 2) == DOF_VERSION && get(&r, 2) == 0, "header");
	uint32_t nopts = (uint32_t)get(&r, 4), set = 0;
	for (int id = 0; id < DOF_OPT_LIMIT; id++)
		set += obj->option_set[id];
	CHECK(t, nopts == set, "%u options, %u set", nopts, set);
	for (uint32_t i = 0; i < nopts && !r.bad; i++) {
		unsigned id = (unsigned)get(&r, 2);
		CHECK(t, get(&r, 2) == 0, "option padding");
		uint64_t v = get(&r, 8);
		CHECK(t, id > 0 && id < DOF_OPT_LIMIT && obj->option_set[id] && obj->option[id] == v,
		      "option %u = %llu", id, (unsigned long long)v);
	}
	uint32_t nprogs = (uint32_t)get(&r, 4);
	CHECK(t, nprogs == obj->nprogs && nprogs <= DOF_MAX_PROGS, "%u programs, object has %u",
	      nprogs, obj->nprogs);
	for (uint32_t i = 0; i < nprogs && !r.bad; i++) {
		struct dif_prog p;
		bool ok = read_prog(&r, &p);
		CHECK(t, ok, "program %u does not decode", i);
		CHECK(t, !ok || dif_verify(&p, why, sizeof(why)) == 0, "decoded program %u: %s", i, why);
		CHECK(t, !ok || i >= obj->nprogs || same_prog(&p, &obj->progs[i]),
		      "program %u differs", i);
		free_prog(&p);
	}
	uint32_t naggs = (uint32_t)get(&r, 4);
	CHECK(t, naggs == (uint32_t)obj->naggs, "%u aggregations", naggs);
	for (uint32_t i = 0; i < naggs && i < (uint32_t)obj->naggs && !r.bad; i++) {
		const struct dt_agg_code *ac = &obj->aggs[i];
		CHECK(t, get(&r, 1) == ac->func && get(&r, 1) == (uint64_t)ac->nkeys &&
		      get(&r, 2) == 0, "aggregation %u", i);
		for (int k = 0; k < ac->nkeys; k++) {
			uint8_t type = (uint8_t)get(&r, 1);
			CHECK(t, get(&r, 1) == 0, "key padding");
			uint16_t size = (uint16_t)get(&r, 2);
			bool string = ac->keys[k].kind == DT_DATUM_STRING;
			/* A string is declared strsize bytes; it takes that rounded up to 8. */
			CHECK(t, type == (string ? DIF_TYPE_STRING : DIF_TYPE_INT) &&
			      size == (string ? obj->strsize : ac->keys[k].size) &&
			      (size + 7u) / 8 * 8 == ac->keys[k].size,
			      "aggregation %u key %d: type %u size %u", i, k, type, size);
		}
		bool lq = ac->func == DOF_AGG_LQUANTIZE;
		int64_t low = (int64_t)get(&r, 8), high = (int64_t)get(&r, 8), step = (int64_t)get(&r, 8);
		CHECK(t, low == (lq ? ac->agg->lq_low : 0) && high == (lq ? ac->agg->lq_high : 0) &&
		      step == (lq ? ac->agg->lq_step : 0), "aggregation %u lquantize bounds", i);
	}
	uint32_t nclauses = (uint32_t)get(&r, 4);
	CHECK(t, nclauses == (uint32_t)obj->nclauses, "%u clauses", nclauses);
	for (uint32_t i = 0; i < nclauses && i < (uint32_t)obj->nclauses && !r.bad; i++) {
		const struct dt_clause_code *cc = &obj->clauses[i];
		CHECK(t, get(&r, 2) == (uint64_t)cc->clause->nprobes && get(&r, 2) == cc->flags,
		      "clause %u probes and flags", i);
		for (const struct dt_probedesc *d = cc->clause->probes; d; d = d->next)
			CHECK(t, part_is(&r, d->provider) && part_is(&r, d->module) &&
			      part_is(&r, d->function) && part_is(&r, d->name), "clause %u: %s", i,
			      d->text);
		uint32_t pred = (uint32_t)get(&r, 4);
		CHECK(t, pred == cc->predicate && (pred == DOF_NONE || pred < nprogs),
		      "clause %u predicate %u", i, pred);
		uint16_t nactions = (uint16_t)get(&r, 2);
		CHECK(t, get(&r, 2) == 0 && nactions == cc->nkactions && nactions <= DOF_MAX_ACTIONS,
		      "clause %u: %u actions", i, nactions);
		for (int a = 0; a < nactions && a < cc->nkactions && !r.bad; a++) {
			const struct dt_kaction *k = &cc->kactions[a];
			uint16_t kind = (uint16_t)get(&r, 2), n = (uint16_t)get(&r, 2);
			uint32_t arg = (uint32_t)get(&r, 4);
			CHECK(t, kind == k->kind && n == k->nprogs && arg == k->arg &&
			      kind >= DOF_ACT_EXPR && kind < DOF_ACT_LIMIT,
			      "clause %u action %d: kind %u, %u programs, arg %u", i, a, kind, n, arg);
			for (int j = 0; j < n; j++) {
				uint32_t prog = (uint32_t)get(&r, 4);
				CHECK(t, j >= k->nprogs || (prog == k->progs[j] && prog < nprogs),
				      "clause %u action %d program %d", i, a, j);
			}
		}
	}
	CHECK(t, !r.bad && r.at == r.len, "object of %zu bytes, read %zu%s", r.len, r.at,
	      r.bad ? " and ran past the end" : "");
	CHECK(t, obj->size <= DOF_MAX_OBJECT, "object too large");
}

static struct dt_object *generate_or_fail(struct host_test_ctx *t, const char *src,
					  unsigned flags, struct dt_program **p)
{
	char why[300];
	*p = dt_compile(src, strlen(src), "t.d", 0, NULL, flags);
	struct dt_object *obj = NULL;
	if (!*p || (*p)->nerrors || dt_generate(*p, &obj))
		CHECK(t, false, "%.50s: %s", src, d_first_error(*p, why, sizeof(why)));
	return obj;
}

HOST_TEST(d_dof_reads_back)
{
	static const char *const programs[] = {
		"BEGIN { trace(1); }",
		"#pragma D option nspec=3\n#pragma D option dynvarsize=64k\n"
		"#pragma D option specsize=8k\n#pragma D option aggsize=128k\n"
		"fbt::bcache_*:entry, sdt:kernel::probe /arg0 > 0x123456789/ { self->ts[arg1] = "
		"timestamp; @c[execname, arg0] = count(); @l = lquantize(arg0, -5, 50, 5); "
		"printf(\"%s %d\\n\", probefunc, arg1); }\n"
		"fbt::bcache_read:return /self->ts[arg1]/ { @q[probefunc] = quantize(timestamp - "
		"self->ts[arg1]); self->ts[arg1] = 0; stack(4); }\n"
		"END { printa(@c); exit(0); }",
		"tick-1s { self->spec = speculation(); speculate(self->spec); trace(\"x\"); }"
		"tick-2s { commit(1); } tick-3s { discard(1); }",
	};
	for (size_t i = 0; i < sizeof(programs) / sizeof(programs[0]); i++) {
		struct dt_program *p;
		struct dt_object *obj = generate_or_fail(t, programs[i], 0, &p);
		if (obj)
			read_back(t, obj);
		dt_program_free(p);
	}
}

HOST_TEST(d_dof_program_decoded_from_bytes_runs)
{
	struct dt_program *p;
	struct dt_object *obj = generate_or_fail(t, "BEGIN { trace(strjoin(execname, \"!\")); }",
						 0, &p);
	REQUIRE(t, obj, "no object");
	/* The one program is the object's last bytes before the aggregations and clauses. */
	struct reader r = { obj->bytes, obj->size, 0, false };
	get(&r, 8);
	get(&r, 4);		/* no options */
	REQUIRE(t, get(&r, 4) == 1, "one program");
	struct dif_prog prog;
	REQUIRE(t, read_prog(&r, &prog), "decodes");
	struct fake_kernel k;
	fake_kernel_init(&k);
	uint64_t v;
	struct dif_fault fault;
	CHECK(t, dif_run(&prog, &fake_kernel_ops, &k, &v, &fault) == 0 &&
	      !strcmp((const char *)(uintptr_t)v, "kworker!"), "runs to the joined string");
	free_prog(&prog);
	dt_program_free(p);
}

HOST_TEST(d_record_layout)
{
	struct dt_program *p;
	struct dt_object *obj = generate_or_fail(t, "#pragma D option strsize=100\n"
		"BEGIN { trace(1); trace(\"s\"); trace((int8_t)2); stack(); printf(\"%d %s\", 1, "
		"\"x\"); x = 3; exit(0); }", 0, &p);
	REQUIRE(t, obj, "no object");
	const struct dt_clause_code *cc = &obj->clauses[0];
	CHECK(t, cc->flags == DOF_CLAUSE_RECORD && !cc->default_action, "clause records");
	REQUIRE(t, cc->nactions == 6, "%d consumer actions", cc->nactions);
	static const struct {
		int action, datum;
		enum dt_datum_kind kind;
		uint32_t offset, size;
	} want[] = {
		{ 0, 0, DT_DATUM_INT, 16, 8 },		/* after the 16-byte header */
		{ 1, 0, DT_DATUM_STRING, 24, 100 },	/* strsize bytes */
		{ 2, 0, DT_DATUM_INT, 128, 8 },		/* 124 rounded up to 8 */
		{ 3, 0, DT_DATUM_STACK, 136, 160 },	/* stackframes = 20 */
		{ 4, 0, DT_DATUM_INT, 296, 8 },
		{ 4, 1, DT_DATUM_STRING, 304, 100 },
		{ 5, 0, DT_DATUM_INT, 408, 8 },		/* exit's status */
	};
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		const struct dt_action *a = &cc->actions[want[i].action];
		REQUIRE(t, want[i].datum < a->ndata, "action %d has %d data", want[i].action,
			a->ndata);
		const struct dt_datum *d = &a->data[want[i].datum];
		CHECK(t, d->kind == want[i].kind && d->offset == want[i].offset &&
		      d->size == want[i].size, "action %d datum %d: kind %d at %u, %u bytes; want "
		      "kind %d at %u, %u bytes", want[i].action, want[i].datum, d->kind, d->offset,
		      d->size, want[i].kind, want[i].offset, want[i].size);
	}
	CHECK(t, cc->size == 416, "record of %u bytes, want 416", cc->size);
	CHECK(t, cc->actions[2].data[0].type.size == 1 && cc->actions[2].data[0].type.is_signed,
	      "(int8_t) keeps its declared width");
	CHECK(t, cc->actions[3].data[0].frames == 20, "stack( ) frames");
	static const uint16_t kinds[] = { DOF_ACT_RECORD, DOF_ACT_RECORD, DOF_ACT_RECORD,
					  DOF_ACT_STACK, DOF_ACT_RECORD, DOF_ACT_RECORD,
					  DOF_ACT_EXPR, DOF_ACT_EXIT };
	REQUIRE(t, cc->nkactions == (int)(sizeof(kinds) / sizeof(kinds[0])), "%d kernel actions",
		cc->nkactions);
	for (int i = 0; i < cc->nkactions; i++)
		CHECK(t, cc->kactions[i].kind == kinds[i], "kernel action %d: %u", i,
		      cc->kactions[i].kind);
	CHECK(t, cc->kactions[3].arg == 20 && cc->kactions[3].nprogs == 0, "STACK 20 frames");
	read_back(t, obj);
	dt_program_free(p);
}

HOST_TEST(d_which_clauses_record)
{
	static const struct {
		const char *src;
		unsigned flags;
		bool record, default_action;
		uint32_t size;
		int nactions;
	} cases[] = {
		{ "BEGIN", DT_COMPILE_PROBESPEC, true, true, 16, 0 },
		{ "BEGIN {}", 0, true, true, 16, 0 },
		{ "BEGIN /arg0/ {}", 0, true, true, 16, 0 },
		{ "BEGIN { x = 1; @a = count(); }", 0, false, false, 0, 0 },
		{ "BEGIN { @a = count(); printa(@a); }", 0, true, false, 16, 1 },
		{ "BEGIN { @a = count(); clear(@a); }", 0, true, false, 16, 1 },
		{ "BEGIN { @a = count(); trunc(@a); denormalize(@a); }", 0, true, false, 16, 2 },
		{ "BEGIN { @a = count(); trunc(@a, 2); normalize(@a, 10); }", 0, true, false, 32, 2 },
		{ "BEGIN { printf(\"hello\\n\"); }", 0, true, false, 16, 1 },
		{ "BEGIN { commit(1); }", 0, false, false, 0, 0 },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct dt_program *p;
		struct dt_object *obj = generate_or_fail(t, cases[i].src, cases[i].flags, &p);
		if (obj) {
			const struct dt_clause_code *cc = &obj->clauses[0];
			CHECK(t, !!(cc->flags & DOF_CLAUSE_RECORD) == cases[i].record &&
			      cc->default_action == cases[i].default_action && cc->size == cases[i].size &&
			      cc->nactions == cases[i].nactions, "%s: record %d, default %d, %u bytes, "
			      "%d actions", cases[i].src, cc->flags & DOF_CLAUSE_RECORD,
			      cc->default_action, cc->size, cc->nactions);
			read_back(t, obj);
		}
		dt_program_free(p);
	}
}

HOST_TEST(d_aggregation_code)
{
	struct dt_program *p;
	struct dt_object *obj = generate_or_fail(t, "BEGIN { @a[execname, arg0, cpu] = sum(arg1);"
		" @ = count(); @l[\"k\"] = lquantize(arg0, -10, 10, 2); @m[func(arg2)] = max(arg0); }",
		0, &p);
	REQUIRE(t, obj && obj->naggs == 4, "four aggregations");
	const struct dt_agg_code *a = &obj->aggs[0];
	CHECK(t, a->func == DOF_AGG_SUM && a->nkeys == 3 && a->keybytes == 256 + 8 + 8,
	      "@a: func %u, %d keys, %u bytes", a->func, a->nkeys, a->keybytes);
	CHECK(t, a->keys[0].kind == DT_DATUM_STRING && a->keys[0].offset == 0 &&
	      a->keys[1].offset == 256 && a->keys[2].offset == 264 && a->keys[2].type.size == 4 &&
	      a->keys[2].type.is_signed, "@a key layout: back to back");
	CHECK(t, obj->aggs[1].func == DOF_AGG_COUNT && obj->aggs[1].nkeys == 0 &&
	      !strcmp(obj->aggs[1].agg->name, ""), "@ is count( )");
	CHECK(t, obj->aggs[2].func == DOF_AGG_LQUANTIZE, "@l is lquantize( )");
	CHECK(t, obj->aggs[3].keys[0].type.sym == DT_SYM_FUNC, "@m's key prints as a function");

	struct fake_kernel k;
	fake_kernel_init(&k);
	k.builtin[DIF_VAR_ARG0] = (uint64_t)-3;
	k.builtin[DIF_VAR_ARG1] = 77;
	REQUIRE(t, fake_fire(&k, obj, 0) == 0, "fault");
	REQUIRE(t, k.naggs == 4, "%u updates", k.naggs);
	const struct fake_agg_update *u = &k.aggs[0];
	CHECK(t, u->agg == 0 && u->nkeys == 3 && !strcmp(u->keys[0].str, "kworker") &&
	      u->keys[1].value == (uint64_t)-3 && u->keys[2].value == 1000 + DIF_VAR_CPU &&
	      u->has_value && u->value == 77, "@a update");
	CHECK(t, k.aggs[1].agg == 1 && k.aggs[1].nkeys == 0 && !k.aggs[1].has_value,
	      "count( ) has no value program");
	CHECK(t, k.aggs[2].has_value && k.aggs[2].value == (uint64_t)-3 &&
	      !strcmp(k.aggs[2].keys[0].str, "k"), "lquantize's value");
	CHECK(t, obj->clauses[0].flags == 0, "aggregations alone record nothing");
	fake_kernel_reset(&k);
	read_back(t, obj);
	dt_program_free(p);

	/* A string key takes strsize rounded up to 8: the values after the key stay aligned. */
	obj = generate_or_fail(t, "#pragma D option strsize=100\n"
			       "BEGIN { @a[execname, arg0] = count(); }", 0, &p);
	REQUIRE(t, obj, "no object");
	a = &obj->aggs[0];
	CHECK(t, a->keys[0].size == 104 && a->keys[1].offset == 104 && a->keybytes == 112,
	      "strsize=100 key: %u bytes, next at %u, %u in all", a->keys[0].size, a->keys[1].offset,
	      a->keybytes);
	read_back(t, obj);
	dt_program_free(p);
}

/* Brackets balance outside strings, strings end, no raw control bytes. */
static bool json_well_formed(const char *s)
{
	int depth = 0;
	bool in_string = false;
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (in_string) {
			if (c < 0x20)
				return false;
			if (c == '\\')
				s++;
			else if (c == '"')
				in_string = false;
		} else if (c == '"') {
			in_string = true;
		} else if (c == '{' || c == '[') {
			depth++;
		} else if ((c == '}' || c == ']') && --depth < 0) {
			return false;
		}
	}
	return depth == 0 && !in_string;
}

HOST_TEST(d_json_for_the_consumer)
{
	struct dt_program *p;
	struct dt_object *obj = generate_or_fail(t, "#pragma D option quiet\n#pragma D option "
		"bufpolicy=ring\nBEGIN { @[\"a\\tb\"] = count(); printf(\"%s\\x01\\n\", execname);"
		" trunc(@, 3); printa(\"%s %@d\", @); exit(1); }", 0, &p);
	REQUIRE(t, obj, "no object");
	char *json = dt_object_json(obj);
	REQUIRE(t, json, "out of memory");
	CHECK(t, json_well_formed(json), "malformed JSON: %.200s", json);
	static const char *const want[] = {
		"{\"object_hex\":\"53444f460400",
		"\"quiet\":1", "\"bufpolicy\":\"ring\"", "\"strsize\":256",
		"\"aggs\":[{\"id\":0,\"name\":\"\",\"func\":\"count\",\"keys\":[{\"type\":\"string\","
		"\"size\":256,", "\"lquantize\":null,\"llquantize\":null",
		"\"probes\":[\"BEGIN\"],\"record\":true,\"default_action\":false,\"size\":288",
		"{\"kind\":\"printf\",\"format\":\"%s\\u0001\\n\",\"args\":[{\"offset\":16,"
		"\"type\":\"string\",\"size\":256,\"signed\":false,\"width\":0,\"sym\":\"none\","
		"\"frames\":0}]}",
		"{\"kind\":\"trunc\",\"agg\":0,\"data\":{\"offset\":272,\"type\":\"int\"",
		"{\"kind\":\"printa\",\"format\":\"%s %@d\",\"aggs\":[0]}",
		"{\"kind\":\"exit\",\"data\":{\"offset\":280,",
	};
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++)
		CHECK(t, strstr(json, want[i]), "JSON lacks %s", want[i]);
	char *hex = strstr(json, "\"object_hex\":\"");
	CHECK(t, hex && strcspn(hex + 14, "\"") == 2 * obj->size, "hex of %zu bytes", obj->size);
	free(json);
	char *text = dt_object_disasm(obj);
	CHECK(t, text && strstr(text, "clause 0: BEGIN (record, 288 bytes)") &&
	      strstr(text, "ldb   r1, execname"), "disassembly: %.200s", text ? text : "");
	free(text);
	dt_program_free(p);
}
