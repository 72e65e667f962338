// SPDX-License-Identifier: BSD-2-Clause
/*
 * The program generator (dref_generate): random, well-typed D programs
 * over the oracle's probes (dref_world.c) that use only what the
 * reference evaluator models. A program is:
 *   - options: strsize (small ones cut strings, and keys, where they
 *     show), and room enough for dynamic variables and aggregations;
 *   - declarations of some of its variables (globals, self->, this->,
 *     associative arrays of either scope with keys of any integer type
 *     or strings); the others come into being by their first use;
 *   - often a BEGIN clause, then 1..5 clauses on one or two probe
 *     descriptions each, with a predicate or not, then often an END
 *     clause; each clause a few statements: assignments to every scope
 *     (=, op=, ++, --), aggregations (count, sum, min, max, avg, stddev,
 *     quantize, lquantize, weighted or not, keyed by tuples of integers
 *     and strings), trace() and printf() of integers and strings, now
 *     and then exit(); sometimes a dtrace:::ERROR clause.
 * Aggregations and arrays keep one function and one key signature each,
 * as the checker insists; a variable keeps the kind it started with.
 * A program that fails to compile is a bug here (dref_check counts it).
 */
#include <stdio.h>
#include <string.h>
#include "dref_gen.h"

#define SCRATCH_BYTES 16384	/* the kernel's per-firing scratch (TRACE_SCRATCH) */

static const char *const probe_descs[] = {
	"fbt:kernel:bcache_read:entry", "fbt::bcache_read:return", "fbt:kernel::entry",
	"fbt:::return", "fbt:kernel:vfs_lookup:entry", "fbt:kernel:vfs_lookup:return",
	"sdt:kernel:mutex_lock:acquire", "sdt:::release", "sdt:kernel::", "profile:::tick-100",
	":::acquire", "fbt::vfs_lookup:",
};

static const unsigned strsizes[] = { 16, 20, 32, 33, 64, 256 };

static struct gen_var *add_var(struct gen *g, enum dt_scope scope, bool array, const char *fmt,
			       unsigned n)
{
	if (g->nvars == GEN_MAX_VARS)
		return NULL;
	struct gen_var *v = &g->vars[g->nvars++];
	memset(v, 0, sizeof(*v));
	snprintf(v->name, sizeof(v->name), fmt, n);
	v->scope = scope;
	v->is_array = array;
	v->is_string = dref_chance(g->r, 30);
	v->declared = dref_chance(g->r, 50);
	if (array) {
		v->nkeys = 1 + (int)dref_below(g->r, GEN_MAX_KEYS);
		for (int k = 0; k < v->nkeys; k++)
			v->key_string[k] = dref_chance(g->r, 35);
	}
	return v;
}

/* Up to a few variables of each scope and kind, named for it. */
static void make_vars(struct gen *g)
{
	static const struct {
		unsigned below;
		uint8_t scope;
		bool array;
		const char *name;
	} kinds[] = {
		{ 4, DT_SCOPE_GLOBAL, false, "g%u" },
		{ 3, DT_SCOPE_GLOBAL, true, "a%u" },
		{ 4, DT_SCOPE_THREAD, false, "self->t%u" },
		{ 3, DT_SCOPE_THREAD, true, "self->ta%u" },
		{ 3, DT_SCOPE_CLAUSE, false, "this->l%u" },
	};
	for (unsigned k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++) {
		unsigned n = dref_below(g->r, kinds[k].below);
		for (unsigned i = 0; i < n; i++)
			add_var(g, kinds[k].scope, kinds[k].array, kinds[k].name, i);
	}
}

static void make_aggs(struct gen *g)
{
	static const enum dt_func_id funcs[] = {
		DT_F_COUNT, DT_F_SUM, DT_F_MIN, DT_F_MAX, DT_F_AVG, DT_F_STDDEV, DT_F_QUANTIZE,
		DT_F_LQUANTIZE, DT_F_LLQUANTIZE,
	};
	static const int factors[] = { 2, 3, 4, 10 };
	g->naggs = 1 + dref_below(g->r, 4);
	for (unsigned i = 0; i < g->naggs; i++) {
		struct gen_agg *a = &g->aggs[i];
		memset(a, 0, sizeof(*a));
		if (i || !dref_chance(g->r, 30))	/* the first may be the anonymous @ */
			snprintf(a->name, sizeof(a->name), "q%u", i);
		a->func = PICK(g, funcs);
		a->nkeys = (int)dref_below(g->r, GEN_MAX_KEYS + 1);
		for (int k = 0; k < a->nkeys; k++)
			a->key_string[k] = dref_chance(g->r, 40);
		a->lq_step = 1 + (int)dref_below(g->r, 5);
		a->lq_low = (int)dref_below(g->r, 21) - 10;
		a->lq_high = a->lq_low + a->lq_step * (1 + (int)dref_below(g->r, 20));
		if (a->func == DT_F_LLQUANTIZE) {	/* factor, low, high, nsteps */
			a->ll_factor = PICK(g, factors);
			a->lq_low = (int)dref_below(g->r, 3);
			a->lq_high = a->lq_low + 1 + (int)dref_below(g->r, 3);
			a->lq_step = a->ll_factor * (dref_chance(g->r, 50) ? 1 : a->ll_factor);
		}
	}
}

/* The declarations of the variables chosen to be declared, in D's syntax. */
static void declare(struct gen *g, struct dref_buf *b)
{
	for (unsigned i = 0; i < g->nvars; i++) {
		struct gen_var *v = &g->vars[i];
		if (!v->declared)
			continue;
		const char *scope = v->scope == DT_SCOPE_THREAD ? "self " :
				    v->scope == DT_SCOPE_CLAUSE ? "this " : "";
		const char *name = strchr(v->name, '>') ? strchr(v->name, '>') + 1 : v->name;
		dref_printf(b, "%s%s %s", scope, v->is_string ? "string" : gen_int_type(g), name);
		if (v->is_array) {
			dref_printf(b, "[");
			for (int k = 0; k < v->nkeys; k++)
				dref_printf(b, "%s%s", k ? ", " : "",
					    v->key_string[k] ? "string" : gen_int_type(g));
			dref_printf(b, "]");
		}
		dref_printf(b, ";\n");
	}
}

static int value_depth(struct gen *g)
{
	return (int)dref_below(g->r, 4);
}

static void assignment(struct gen *g, struct dref_buf *b, struct gen_var *v)
{
	struct dref_buf rhs = { 0 };
	/* The checker reads the value first, then the target's keys: write them in that order. */
	if (v->is_string)
		gen_str(g, &rhs, value_depth(g), GEN_ANY);
	else
		gen_int(g, &rhs, value_depth(g), GEN_ANY);
	dref_printf(b, "\t");
	gen_var_ref(g, b, v, 2);
	dref_printf(b, " = %s;\n", rhs.text);
	dref_buf_free(&rhs);
	v->appeared = true;
}

static void compound(struct gen *g, struct dref_buf *b, struct gen_var *v)
{
	static const char *const ops[] = { "+=", "-=", "*=", "&=", "|=", "^=", "/=", "%=", "<<=",
					   ">>=", "++", "--", "pre++", "pre--" };
	const char *op = PICK(g, ops);
	dref_printf(b, "\t");
	if (!strncmp(op, "pre", 3)) {
		dref_printf(b, "%s", op + 3);
		gen_var_ref(g, b, v, 2);
		dref_printf(b, ";\n");
		return;
	}
	gen_var_ref(g, b, v, 2);
	if (!strcmp(op, "++") || !strcmp(op, "--")) {
		dref_printf(b, "%s;\n", op);
		return;
	}
	dref_printf(b, " %s ", op);
	if (op[0] == '<' || op[0] == '>') {
		dref_printf(b, "%u;\n", dref_below(g->r, 70));
	} else if (op[0] == '/' || op[0] == '%') {
		dref_printf(b, "(");
		gen_int(g, b, value_depth(g), GEN_ANY);
		dref_printf(b, " | 1);\n");
	} else {
		gen_int(g, b, value_depth(g), GEN_ANY);
		dref_printf(b, ";\n");
	}
}

static void aggregation(struct gen *g, struct dref_buf *b, const struct gen_agg *a)
{
	dref_printf(b, "\t@%s", a->name);
	if (a->nkeys) {
		dref_printf(b, "[");
		for (int k = 0; k < a->nkeys; k++) {
			dref_printf(b, "%s", k ? ", " : "");
			if (a->key_string[k])
				gen_str(g, b, 2, GEN_KEY);
			else
				gen_int(g, b, 2, GEN_KEY);
		}
		dref_printf(b, "]");
	}
	dref_printf(b, " = %s(", dt_funcs[a->func].name);
	if (a->func != DT_F_COUNT)
		gen_int(g, b, value_depth(g), GEN_SAFE);
	if (a->func == DT_F_LQUANTIZE)
		dref_printf(b, ", %d, %d, %d", a->lq_low, a->lq_high, a->lq_step);
	if (a->func == DT_F_LLQUANTIZE)
		dref_printf(b, ", %d, %d, %d, %d", a->ll_factor, a->lq_low, a->lq_high, a->lq_step);
	if ((a->func == DT_F_QUANTIZE || a->func == DT_F_LQUANTIZE ||
	     a->func == DT_F_LLQUANTIZE) && dref_chance(g->r, 30)) {
		dref_printf(b, ", ");
		gen_int(g, b, 1, GEN_KEY);	/* the increment: small, maybe negative */
	}
	dref_printf(b, ");\n");
}

static void trace_stmt(struct gen *g, struct dref_buf *b)
{
	dref_printf(b, "\ttrace(");
	if (dref_chance(g->r, 40))
		gen_str(g, b, value_depth(g), GEN_SAFE);
	else
		gen_int(g, b, value_depth(g), GEN_SAFE);
	dref_printf(b, ");\n");
}

/* printf: a format of conversions, each value cast to the type its conversion takes. */
static void printf_stmt(struct gen *g, struct dref_buf *b)
{
	static const struct {
		const char *conv, *cast;
	} ints[] = {
		{ "%d", "(int)" }, { "%i", "(int)" }, { "%u", "(unsigned)" }, { "%x", "(unsigned)" },
		{ "%ld", "(long)" }, { "%lld", "(long long)" }, { "%llu", "(unsigned long long)" },
		{ "%llx", "(unsigned long long)" }, { "%c", "(char)" },
	};
	struct dref_buf args = { 0 };
	dref_printf(b, "\tprintf(\"");
	unsigned n = dref_below(g->r, 4);
	for (unsigned i = 0; i < n; i++) {
		dref_printf(&args, ", ");
		if (dref_chance(g->r, 35)) {
			dref_printf(b, "%s%%s", i ? " " : "");
			gen_str(g, &args, value_depth(g), GEN_SAFE);
			continue;
		}
		unsigned k = dref_below(g->r, sizeof(ints) / sizeof(ints[0]));
		dref_printf(b, "%s%s", i ? " " : "", ints[k].conv);
		dref_printf(&args, "%s(", ints[k].cast);
		gen_int(g, &args, value_depth(g), GEN_SAFE);
		dref_printf(&args, ")");
	}
	dref_printf(b, "\\n\"%s);\n", args.text ? args.text : "");
	dref_buf_free(&args);
}

/* An integer variable that may be read and written in place: ++, op=. */
static struct gen_var *pick_int_var(struct gen *g)
{
	struct gen_var *found[GEN_MAX_VARS];
	unsigned n = 0;
	for (unsigned i = 0; i < g->nvars; i++)
		if (!g->vars[i].is_string && gen_readable(&g->vars[i]))
			found[n++] = &g->vars[i];
	return n ? found[dref_below(g->r, n)] : NULL;
}

static void statement(struct gen *g, struct dref_buf *b, bool assignments_only)
{
	unsigned what = assignments_only ? dref_below(g->r, 40) : dref_below(g->r, 100);
	if (what < 30 && g->nvars) {
		assignment(g, b, &g->vars[dref_below(g->r, g->nvars)]);
		return;
	}
	if (what < 40) {
		struct gen_var *v = pick_int_var(g);
		if (v) {
			compound(g, b, v);
			return;
		}
	}
	if (what < 75 || assignments_only) {
		aggregation(g, b, &g->aggs[dref_below(g->r, g->naggs)]);
		return;
	}
	if (what < 88) {
		trace_stmt(g, b);
		return;
	}
	if (what < 98 || !g->may_exit) {
		printf_stmt(g, b);
		return;
	}
	/* exit(): rare, as it ends the run for every probe but END. */
	dref_printf(b, "\texit(");
	gen_int(g, b, 1, GEN_SAFE);
	dref_printf(b, ");\n");
}

/*
 * dtrace:::ERROR: what failed (arg1 the EPID, arg2 the action, arg4 the
 * fault, arg5 the address; never arg3, the instruction, which the
 * evaluator does not know), and sometimes a fault of its own, which
 * fires nothing more.
 */
static void error_clause(struct gen *g, struct dref_buf *b)
{
	static const char *const statements[] = {
		"\t@errors[arg1, arg2, arg4] = count();\n",
		"\t@where[probename, arg5] = count();\n",
		"\ttrace(arg5);\n",
		"\ttrace(arg4);\n",
		"\tself->errors++;\n",
		"\ttrace(1000 / (arg4 & 0));\n",
		"\tprintf(\"%d %d\\n\", (int)arg1, (int)arg2);\n",
	};
	dref_printf(b, "\nERROR\n");
	if (dref_chance(g->r, 30))
		dref_printf(b, "/arg4 == %u/\n", 1 + dref_below(g->r, 4));
	dref_printf(b, "{\n");
	unsigned n = 1 + dref_below(g->r, 3);
	for (unsigned i = 0; i < n; i++)
		dref_printf(b, "%s", PICK(g, statements));
	dref_printf(b, "}\n");
}

static void clause(struct gen *g, struct dref_buf *b, const char *probes, bool begin)
{
	g->scratch = SCRATCH_BYTES / ((g->strsize + 7) & ~7u) / 2;
	g->faults = dref_chance(g->r, 30);
	g->may_exit = !begin && dref_chance(g->r, 15);
	dref_printf(b, "\n%s", probes);
	if (!begin && dref_chance(g->r, 20))
		dref_printf(b, ",\n%s", PICK(g, probe_descs));
	dref_printf(b, "\n");
	if (!begin && dref_chance(g->r, 45)) {
		dref_printf(b, "/");
		gen_int(g, b, 1 + (int)dref_below(g->r, 3), GEN_ANY);
		dref_printf(b, "/\n");
	}
	dref_printf(b, "{\n");
	unsigned n = 1 + dref_below(g->r, 6);
	for (unsigned i = 0; i < n; i++)
		statement(g, b, begin && dref_chance(g->r, 70));
	dref_printf(b, "}\n");
}

void dref_generate(struct dref_rng *r, struct dref_buf *b)
{
	struct gen g = { .r = r };
	b->len = 0;
	g.strsize = PICK(&g, strsizes);
	dref_printf(b, "/* generated by tests/dref */\n");
	if (g.strsize != 256 || dref_chance(r, 30))
		dref_printf(b, "#pragma D option strsize=%u\n", g.strsize);
	dref_printf(b, "#pragma D option dynvarsize=1m\n#pragma D option aggsize=256k\n");
	make_vars(&g);
	make_aggs(&g);
	declare(&g, b);
	if (dref_chance(r, 70))
		clause(&g, b, "BEGIN", true);
	unsigned n = 1 + dref_below(r, 5);
	for (unsigned i = 0; i < n; i++)
		clause(&g, b, PICK(&g, probe_descs), false);
	if (dref_chance(r, 35))
		error_clause(&g, b);
	if (dref_chance(r, 50))
		clause(&g, b, "END", false);
}
