// SPDX-License-Identifier: BSD-2-Clause
/*
 * The checked program as S-expressions, for tests and for reading: the
 * options #pragma set, the variables and aggregations (with ids, types
 * and key signatures), then each clause's probes, predicate and
 * statements. Every expression prints as (HEAD TYPE OPERANDS...), HEAD
 * being the operator or what the node resolved to:
 *
 *	(int int64 5) (str "hi\n") (builtin uint64 timestamp)
 *	(global int64 x) (self uint64 ts) (this int64 n)
 *	(global[] int64 a KEY...) (-> uint64 tid (builtin thread curthread))
 *	(+ int64 L R) (! int32 E) (?: int64 C A B) (= int64 L R) (+= int64 L R)
 *	(post++ int64 E) (cast uint8 E) (call string strjoin A B) (, int64 L R)
 *	(aggref @name) (field {struct thread *} +96 (builtin ... curthread))
 *	(& {char *} (field {char [24]} +40 ...)) (field uint32 +8 bits 3<<4 ...)
 *
 * A program with errors dumps as (program-with-errors N) only.
 *
 * Invariant: the output depends only on the program (no addresses, no
 * ordering from hashing), so the same source always dumps the same text.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "dt_impl.h"

struct out {
	char *p;
	size_t len, cap;
	bool nomem;
	const struct dt_ctf *ctf;	/* names C types */
};

static void put(struct out *o, const char *s, size_t n)
{
	if (o->nomem)
		return;
	if (o->len + n + 1 > o->cap) {
		size_t cap = o->cap ? o->cap : 4096;
		while (o->len + n + 1 > cap)
			cap *= 2;
		char *p = realloc(o->p, cap);
		if (!p) {
			o->nomem = true;
			return;
		}
		o->p = p;
		o->cap = cap;
	}
	memcpy(o->p + o->len, s, n);
	o->len += n;
	o->p[o->len] = '\0';
}

static void puts_(struct out *o, const char *s)
{
	put(o, s, strlen(s));
}

static void printf_(struct out *o, const char *fmt, ...) DT_PRINTF_LIKE(2, 3);
static void printf_(struct out *o, const char *fmt, ...)
{
	char buf[512];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (n > 0)
		put(o, buf, (size_t)n < sizeof(buf) ? (size_t)n : sizeof(buf) - 1);
}

static void quoted(struct out *o, const char *s, size_t len)
{
	puts_(o, "\"");
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];
		switch (c) {
		case '"': puts_(o, "\\\""); break;
		case '\\': puts_(o, "\\\\"); break;
		case '\n': puts_(o, "\\n"); break;
		case '\t': puts_(o, "\\t"); break;
		case '\r': puts_(o, "\\r"); break;
		default:
			if (c < 0x20 || c >= 0x7f)
				printf_(o, "\\x%02x", c);
			else
				put(o, (const char *)&c, 1);
		}
	}
	puts_(o, "\"");
}

/* A C type's name has spaces: it prints in braces, {struct thread *}. */
static void type(struct out *o, struct dt_type t)
{
	char buf[192];
	if (t.kind == DT_TYPE_SOU || t.kind == DT_TYPE_ARRAY ||
	    (t.kind == DT_TYPE_PTR && t.base_kind == DT_TYPE_SOU)) {
		dt_ctf_name(o->ctf, t.ctf, buf, sizeof(buf));
		printf_(o, "{%s%s%.*s}", buf, t.kind == DT_TYPE_PTR ? " " : "",
			t.kind == DT_TYPE_PTR ? (int)t.levels : 0, "********");
		return;
	}
	puts_(o, dt_type_name(t, buf, sizeof(buf)));
}

static const char *const scope_names[DT_SCOPE_COUNT] = { "global", "self", "this" };

static void expr(struct out *o, const struct dt_node *n);

static void list(struct out *o, const struct dt_node *n)
{
	for (; n; n = n->next) {
		puts_(o, " ");
		expr(o, n);
	}
}

/* An operator's type, then its operands (those present), each after a space. */
static void operands(struct out *o, struct dt_type t, const struct dt_node *a,
		     const struct dt_node *b, const struct dt_node *c)
{
	const struct dt_node *each[] = { a, b, c };
	type(o, t);
	for (int i = 0; i < 3; i++) {
		if (each[i]) {
			puts_(o, " ");
			expr(o, each[i]);
		}
	}
}

static void expr(struct out *o, const struct dt_node *n)
{
	puts_(o, "(");
	switch (n->kind) {
	case DT_N_INT:
		puts_(o, "int ");
		type(o, n->type);
		if (n->type.is_signed)
			printf_(o, " %lld", (long long)n->value);
		else
			printf_(o, " %llu", (unsigned long long)n->value);
		break;
	case DT_N_STRING:
		puts_(o, "str ");
		quoted(o, n->str, n->len);
		break;
	case DT_N_BUILTIN:
		puts_(o, "builtin ");
		type(o, n->type);
		printf_(o, " %s", n->ref.builtin->name);
		break;
	case DT_N_VAR:
	case DT_N_ARRAY:
		printf_(o, "%s%s ", scope_names[n->scope], n->kind == DT_N_ARRAY ? "[]" : "");
		type(o, n->type);
		printf_(o, " %s", n->str);
		if (n->kind == DT_N_ARRAY)
			list(o, n->args);
		break;
	case DT_N_MEMBER:
		puts_(o, "-> ");
		type(o, n->type);
		printf_(o, " %s ", n->str);
		expr(o, n->left);
		break;
	case DT_N_FIELD:
		puts_(o, "field ");
		type(o, n->type);
		printf_(o, " +%llu", (unsigned long long)n->value);
		if (n->bits)
			printf_(o, " bits %u<<%u", n->bits, n->shift);
		if (n->left) {
			puts_(o, " ");
			expr(o, n->left);
		}
		break;
	case DT_N_AGGREF:
	case DT_N_AGGNAME:
		printf_(o, "aggref @%s", n->str);
		break;
	case DT_N_UNARY:
	case DT_N_BINARY:
	case DT_N_INCDEC:
		printf_(o, "%s ", dt_op_name(n->op));
		operands(o, n->type, n->left, n->right, NULL);
		break;
	case DT_N_ASSIGN:
		printf_(o, "%s= ", n->op == DT_OP_NONE ? "" : dt_op_name(n->op));
		operands(o, n->type, n->left, n->right, NULL);
		break;
	case DT_N_TERNARY:
		puts_(o, "?: ");
		operands(o, n->type, n->cond, n->left, n->right);
		break;
	case DT_N_CAST:
		puts_(o, "cast ");
		operands(o, n->type, n->left, NULL, NULL);
		break;
	case DT_N_CALL:
		puts_(o, "call ");
		type(o, n->type);
		printf_(o, " %s", n->str);
		list(o, n->args);
		break;
	case DT_N_COMMA:
		puts_(o, ", ");
		operands(o, n->type, n->left, n->right, NULL);
		break;
	case DT_N_IDENT:
	case DT_N_INDEX:
	case DT_N_DOT:
	case DT_N_SIZEOF:
	case DT_N_XLATE:
		puts_(o, "unresolved");
		break;
	}
	puts_(o, ")");
}

static void format(struct out *o, const struct dt_format *f)
{
	puts_(o, " (format");
	for (int i = 0; i < f->nconv; i++) {
		puts_(o, " ");
		quoted(o, f->text + f->convs[i].offset, f->convs[i].length);
	}
	puts_(o, ")");
}

static void stmt(struct out *o, const struct dt_stmt *s)
{
	puts_(o, "    (");
	switch (s->kind) {
	case DT_S_EXPR:
		puts_(o, "expr ");
		expr(o, s->expr);
		break;
	case DT_S_ACTION:
		printf_(o, "action %s", s->func->name);
		if (s->format)
			format(o, s->format);
		list(o, s->args);
		break;
	case DT_S_AGG:
		printf_(o, "aggregate @%s (keys", s->agg->name);
		list(o, s->keys);
		printf_(o, ") (%s", s->func->name);
		list(o, s->args);
		puts_(o, ")");
		break;
	}
	puts_(o, ")\n");
}

static void options(struct out *o, const struct dt_options *opts)
{
	for (int i = 0; i < DT_OPTION_COUNT; i++) {
		if (!opts->set[i])
			continue;
		const struct dt_option_desc *d = &dt_options_table[i];
		if (d->kind == DT_OK_CHOICE)
			printf_(o, "  (option %s %s)\n", d->name, d->choices[opts->value[i]]);
		else
			printf_(o, "  (option %s %llu)\n", d->name,
				(unsigned long long)opts->value[i]);
	}
}

static void keys(struct out *o, int n, const struct dt_type *k)
{
	puts_(o, " (keys");
	for (int i = 0; i < n; i++) {
		puts_(o, " ");
		type(o, k[i]);
	}
	puts_(o, ")");
}

char *dt_program_dump(const struct dt_program *p)
{
	struct out o = { .ctf = p->ctf };

	if (p->nerrors > 0) {
		/* Not checked: nothing in it is trustworthy. */
		printf_(&o, "(program-with-errors %d)\n", p->nerrors);
		return o.nomem ? (free(o.p), NULL) : o.p;
	}
	puts_(&o, "(program\n");
	options(&o, &p->options);
	for (const struct dt_var *v = p->vars; v; v = v->next) {
		printf_(&o, "  (var %s %s ", scope_names[v->scope], v->name);
		type(&o, v->type);
		printf_(&o, " #%d %s", v->id, v->declared ? "declared" : "implicit");
		if (v->is_array)
			keys(&o, v->nkeys, v->keys);
		puts_(&o, ")\n");
	}
	for (const struct dt_agg *a = p->aggs; a; a = a->next) {
		printf_(&o, "  (agg @%s #%d %s", a->name, a->id, a->func ? a->func->name : "?");
		keys(&o, a->nkeys, a->keys);
		if (a->func && a->func->id == DT_F_LQUANTIZE)
			printf_(&o, " (range %lld %lld %lld)", (long long)a->lq_low,
				(long long)a->lq_high, (long long)a->lq_step);
		if (a->func && a->func->id == DT_F_LLQUANTIZE)
			printf_(&o, " (factor %u low %lld high %lld nsteps %u)",
				DOF_LLQ_FACTOR(a->lq_step), (long long)a->lq_low,
				(long long)a->lq_high, DOF_LLQ_NSTEPS(a->lq_step));
		puts_(&o, ")\n");
	}
	for (const struct dt_clause *c = p->clauses; c; c = c->next) {
		printf_(&o, "  (clause %d (line %d)\n", c->index, c->loc.line);
		for (const struct dt_probedesc *d = c->probes; d; d = d->next) {
			puts_(&o, "    (probe ");
			quoted(&o, d->provider, strlen(d->provider));
			puts_(&o, " ");
			quoted(&o, d->module, strlen(d->module));
			puts_(&o, " ");
			quoted(&o, d->function, strlen(d->function));
			puts_(&o, " ");
			quoted(&o, d->name, strlen(d->name));
			puts_(&o, ")\n");
		}
		if (c->default_action)
			puts_(&o, "    (default-action)\n");
		if (c->speculative)
			puts_(&o, "    (speculative)\n");
		if (c->predicate) {
			puts_(&o, "    (predicate ");
			expr(&o, c->predicate);
			puts_(&o, ")\n");
		}
		for (const struct dt_stmt *s = c->stmts; s; s = s->next)
			stmt(&o, s);
		puts_(&o, "  )\n");
	}
	puts_(&o, ")\n");
	if (o.nomem) {
		free(o.p);
		return NULL;
	}
	return o.p;
}
