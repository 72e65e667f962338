// SPDX-License-Identifier: BSD-2-Clause
/*
 * D's definitions that expand where they are used, as dtrace's do:
 *
 *   inline TYPE NAME = EXPRESSION;
 *	NAME in an expression is (TYPE)(EXPRESSION), a fresh copy checked
 *	where it is used (so an inline may read built-ins and variables);
 *   translator OUT < IN NAME > { MEMBER = EXPRESSION; ... };
 *   xlate < OUT > (X).MEMBER, xlate < OUT * > (X)->MEMBER
 *	the translator from X's type to OUT gives MEMBER's expression, with
 *	NAME standing for X, converted to the member's type in OUT.
 *
 *   extern TYPE NAME;
 *	the kernel variable `NAME has TYPE (whatever the kernel's CTF says).
 *
 * They are parsed at the top level into ctx->inlines, ctx->translators
 * and ctx->externs; expansion copies the stored tree (the checker
 * rewrites nodes in place, so each use needs its own).
 *
 * Invariant: an inline being expanded is marked, so one that uses itself
 * (directly or through others) is an error, not endless expansion.
 */
#include <stdio.h>
#include <string.h>
#include "dt_impl.h"

#define MAX_XLATOR_MEMBERS 128
#define MAX_INLINE_NESTING 64	/* inlines whose expansions use inlines, in a chain */

/* A copy of the tree at n in which every identifier named param is a copy of with. */
static struct dt_node *copy(struct dt_ctx *ctx, const struct dt_node *n, const char *param,
			    const struct dt_node *with)
{
	if (!n)
		return NULL;
	if (param && n->kind == DT_N_IDENT && !strcmp(n->str, param))
		n = with;
	struct dt_node *c = dt_alloc(ctx, sizeof(*c));
	*c = *n;
	c->cond = copy(ctx, n->cond, param, with);
	c->left = copy(ctx, n->left, param, with);
	c->right = copy(ctx, n->right, param, with);
	struct dt_node **tail = &c->args;
	for (const struct dt_node *a = n->args; a; a = a->next) {
		*tail = copy(ctx, a, param, with);
		tail = &(*tail)->next;
	}
	*tail = NULL;
	c->next = NULL;
	return c;
}

/* ---- parsing ---- */

/* After the keyword at hand (consumed): TYPE [*...] NAME into d's type, name and loc. */
static bool parse_typed_name(struct dt_parser *p, const char *keyword, const char *what,
			     struct dt_inline *d)
{
	char expected[48];
	dt_advance(p, DT_LEX_NORMAL);
	if (!dt_at_type(p)) {
		snprintf(expected, sizeof(expected), "a type after %s", keyword);
		dt_syntax_error(p, expected);
		return false;
	}
	if (!dt_parse_type(p, &d->type) || !dt_parse_pointer_stars(p, &d->type))
		return false;
	if (p->tok.kind != T_IDENT) {
		dt_syntax_error(p, what);
		return false;
	}
	d->name = dt_strndup(p->ctx, p->tok.text, p->tok.len);
	d->loc = p->tok.loc;
	dt_advance(p, DT_LEX_NORMAL);
	return true;
}

void dt_parse_inline(struct dt_parser *p)
{
	struct dt_inline *in = dt_alloc(p->ctx, sizeof(*in));
	if (!parse_typed_name(p, "inline", "the inline's name", in))
		return;
	if (!dt_expect(p, T_ASSIGN, "'=' and the inline's value"))
		return;
	if (!(in->expr = dt_parse_assign(p)))
		return;
	if (p->tok.kind != T_SEMI) {
		dt_syntax_error(p, "';' after the inline");
		return;
	}
	if (dt_inline_lookup(p->ctx, in->name) || dt_builtin_lookup(in->name)) {
		dt_refuse(p, in->loc, D_DECL_IDRED, "identifier redeclared: %s", in->name);
		return;
	}
	if (in->type.kind == DT_TYPE_VOID || in->type.kind == DT_TYPE_SOU ||
	    in->type.kind == DT_TYPE_ARRAY) {
		dt_refuse(p, in->loc, D_DECL_VOIDOBJ, "inline %s must have an integer, pointer or "
			  "string type, not %s", in->name, dt_type_str(p->ctx, in->type));
		return;
	}
	in->next = p->ctx->inlines;
	p->ctx->inlines = in;
	dt_advance(p, DT_LEX_CLAUSE_START);
}

void dt_parse_translator(struct dt_parser *p)
{
	struct dt_translator *x = dt_alloc(p->ctx, sizeof(*x));
	x->loc = p->tok.loc;
	dt_advance(p, DT_LEX_NORMAL);		/* translator */
	if (!dt_at_type(p)) {
		dt_syntax_error(p, "the translator's output type");
		return;
	}
	if (!dt_parse_type(p, &x->out) || !dt_expect(p, T_LT, "'<' and the input type"))
		return;
	if (x->out.kind != DT_TYPE_SOU || !x->out.size) {
		dt_refuse(p, x->loc, D_XLATE_SOU, "translator output type must be a struct or "
			  "union, not %s", dt_type_str(p->ctx, x->out));
		return;
	}
	if (!dt_at_type(p)) {
		dt_syntax_error(p, "the translator's input type");
		return;
	}
	if (!dt_parse_type(p, &x->in) || !dt_parse_pointer_stars(p, &x->in))
		return;
	if (p->tok.kind != T_IDENT) {
		dt_syntax_error(p, "the input's name");
		return;
	}
	x->param = dt_strndup(p->ctx, p->tok.text, p->tok.len);
	dt_advance(p, DT_LEX_NORMAL);
	if (!dt_expect(p, T_GT, "'>' after the input") || !dt_expect(p, T_LBRACE, "'{'"))
		return;
	p->braces = 1;			/* an error inside skips to the '}' (recover_top) */
	x->members = dt_alloc(p->ctx, sizeof(*x->members) * MAX_XLATOR_MEMBERS);
	while (p->tok.kind != T_RBRACE) {
		struct dt_xlator_member *m = &x->members[x->n];
		struct dt_ctf_member info;
		if (p->tok.kind != T_IDENT) {
			dt_syntax_error(p, "a member of the output type, or '}'");
			return;
		}
		m->name = dt_strndup(p->ctx, p->tok.text, p->tok.len);
		m->loc = p->tok.loc;
		if (dt_ctf_member(p->ctx, x->out, m->name, &info) == -1) {
			dt_refuse(p, m->loc, D_XLATE_MEMB, "translator member %s is not a member of %s",
				  m->name, dt_type_str(p->ctx, x->out));
			return;
		}
		for (int i = 0; i < x->n; i++)
			if (!strcmp(x->members[i].name, m->name)) {
				dt_refuse(p, m->loc, D_XLATE_REDECL, "translator member %s is defined "
					  "twice", m->name);
				return;
			}
		if (x->n + 1 == MAX_XLATOR_MEMBERS) {
			dt_refuse(p, m->loc, D_UNSUPPORTED, "more than %d translator members",
				  MAX_XLATOR_MEMBERS - 1);
			return;
		}
		dt_advance(p, DT_LEX_NORMAL);
		if (!dt_expect(p, T_ASSIGN, "'=' and the member's value") ||
		    !(m->expr = dt_parse_assign(p)) || !dt_expect(p, T_SEMI, "';' after the member"))
			return;
		x->n++;
	}
	dt_advance(p, DT_LEX_NORMAL);		/* '}' */
	p->braces = 0;
	for (const struct dt_translator *o = p->ctx->translators; o; o = o->next)
		if (dt_type_equal(o->out, x->out) && dt_type_equal(o->in, x->in)) {
			dt_refuse(p, x->loc, D_XLATE_REDECL, "translator from %s to %s is declared "
				  "twice", dt_type_str(p->ctx, x->in), dt_type_str(p->ctx, x->out));
			return;
		}
	if (p->tok.kind != T_SEMI) {
		dt_syntax_error(p, "';' after the translator");
		return;
	}
	x->next = p->ctx->translators;
	p->ctx->translators = x;
	dt_advance(p, DT_LEX_CLAUSE_START);
}

void dt_parse_extern(struct dt_parser *p)
{
	struct dt_inline *e = dt_alloc(p->ctx, sizeof(*e));
	if (!parse_typed_name(p, "extern", "the kernel variable's name", e))
		return;
	if (!dt_parse_array_dims(p, &e->type))
		return;
	if (p->tok.kind != T_SEMI) {
		dt_syntax_error(p, "';' after the extern declaration");
		return;
	}
	if (e->type.kind == DT_TYPE_VOID || e->type.kind == DT_TYPE_STRING) {
		dt_refuse(p, e->loc, D_DECL_VOIDOBJ, "kernel variable %s cannot be declared %s",
			  e->name, dt_type_str(p->ctx, e->type));
		return;
	}
	e->next = p->ctx->externs;
	p->ctx->externs = e;
	dt_advance(p, DT_LEX_CLAUSE_START);
}

bool dt_extern_type(struct dt_ctx *ctx, const char *name, struct dt_type *t)
{
	for (const struct dt_inline *e = ctx->externs; e; e = e->next)
		if (!strcmp(e->name, name)) {
			*t = e->type;
			return true;
		}
	return false;
}

/* ---- expansion ---- */

struct dt_inline *dt_inline_lookup(struct dt_ctx *ctx, const char *name)
{
	for (struct dt_inline *in = ctx->inlines; in; in = in->next)
		if (!strcmp(in->name, name))
			return in;
	return NULL;
}

bool dt_inline_expand(struct dt_checker *ck, struct dt_node *n, struct dt_inline *in)
{
	if (ck->ctx->inline_depth >= MAX_INLINE_NESTING) {
		dt_error(ck->ctx, n->loc, D_NESTING, "inline %s expands more than %d inlines deep",
			 in->name, MAX_INLINE_NESTING);
		return false;
	}
	if (in->expanding) {
		dt_error(ck->ctx, n->loc, D_UNSUPPORTED, "inline %s is defined in terms of itself",
			 in->name);
		return false;
	}
	struct dt_node *cast = dt_node_new(ck->ctx, DT_N_CAST, n->loc);
	cast->type = in->type;
	cast->left = copy(ck->ctx, in->expr, NULL, NULL);
	cast->depth = cast->left->depth + 1;
	dt_node_replace(n, cast);
	in->expanding = true;
	ck->ctx->inline_depth++;
	bool ok = dt_check_expr(ck, n);
	ck->ctx->inline_depth--;
	in->expanding = false;
	return ok;
}

/* Does a value of type from reach a translator's input of type to? */
static bool input_matches(struct dt_type to, struct dt_type from)
{
	if (dt_type_equal(to, from))
		return true;
	if (to.kind == DT_TYPE_INT && from.kind == DT_TYPE_INT)
		return true;
	return to.kind == DT_TYPE_PTR && from.kind == DT_TYPE_PTR && to.levels == from.levels &&
	       to.base_kind == from.base_kind && (to.base_kind != DT_TYPE_SOU || to.ctf == from.ctf);
}

bool dt_xlate_member(struct dt_checker *ck, struct dt_node *n, bool arrow)
{
	struct dt_ctx *ctx = ck->ctx;
	struct dt_node *x = n->left;
	struct dt_type out = x->type;
	if (arrow ? out.kind != DT_TYPE_PTR || out.base_kind != DT_TYPE_SOU || out.levels != 1 :
		    out.kind != DT_TYPE_SOU) {
		dt_error(ctx, n->loc, arrow ? D_OP_PTR : D_OP_SOU, "operator %s cannot be applied "
			 "to xlate < %s >", arrow ? "->" : ".", dt_type_str(ctx, out));
		return false;
	}
	if (arrow)
		out = dt_type_pointee(out);
	if (!dt_check_expr(ck, x->left))
		return false;
	const struct dt_translator *t = ctx->translators;
	while (t && !(t->out.ctf == out.ctf && input_matches(t->in, x->left->type)))
		t = t->next;
	if (!t) {
		dt_error(ctx, x->loc, D_XLATE_NONE, "translator does not exist: %s -> %s",
			 dt_type_str(ctx, x->left->type), dt_type_str(ctx, out));
		return false;
	}
	const struct dt_xlator_member *m = t->members;
	while (m < t->members + t->n && strcmp(m->name, n->str))
		m++;
	if (m == t->members + t->n) {
		dt_error(ctx, n->loc, D_XLATE_NOCONV, "translator does not define conversion for "
			 "member: %s", n->str);
		return false;
	}
	struct dt_ctf_member info;
	dt_ctf_member(ctx, out, m->name, &info);
	struct dt_node *value = copy(ctx, m->expr, t->param, x->left);
	if (info.type.kind == DT_TYPE_INT || info.type.kind == DT_TYPE_PTR) {
		struct dt_node *cast = dt_node_new(ctx, DT_N_CAST, n->loc);
		cast->type = info.type;
		cast->left = value;
		cast->depth = value->depth + 1;
		value = cast;
	}
	dt_node_replace(n, value);
	if (!dt_check_expr(ck, n))
		return false;
	if (dt_ctf_is_char_array(ctx, info.type) && n->type.kind != DT_TYPE_STRING) {
		dt_error(ctx, m->loc, D_XLATE_INCOMPAT, "translator member %s must be a string, not "
			 "%s", m->name, dt_type_str(ctx, n->type));
		return false;
	}
	return true;
}
