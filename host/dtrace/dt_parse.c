// SPDX-License-Identifier: BSD-2-Clause
/*
 * The D parser, top half: a program is a sequence of probe clauses
 *
 *	description[, description...] [/predicate/] { statement; ... }
 *
 * and declarations (`int x;`, `self string s;`, `int a[int, string];`),
 * with `#pragma` lines handled by the lexer. Statements are expressions,
 * action calls and aggregations (`@name[keys] = func(args)`); a comma at
 * the top of a statement separates statements. Expressions are in
 * dt_parse_expr.c, types in dt_parse_type.c, inline and translator
 * declarations in dt_inline.c.
 *
 * Invariants: the parser tells the lexer when a probe description may
 * come (clause starts, and after a ',' in a description list) and peeks
 * at most one token ahead, never across such a point; after a syntax
 * error it reports once, skips to the end of the statement (or of the
 * clause, or declaration) and goes on, so the number of errors stays
 * bounded and every loop consumes input.
 */
#include <stdio.h>
#include <string.h>
#include "dt_impl.h"

void dt_advance(struct dt_parser *p, enum dt_lex_mode mode)
{
	if (p->has_ahead) {
		p->tok = p->ahead;
		p->has_ahead = false;
		return;
	}
	dt_lex_next(&p->lex, mode, &p->tok);
}

const struct dt_token *dt_peek(struct dt_parser *p)
{
	if (!p->has_ahead) {
		dt_lex_next(&p->lex, DT_LEX_NORMAL, &p->ahead);
		p->has_ahead = true;
	}
	return &p->ahead;
}

void dt_syntax_error(struct dt_parser *p, const char *expected)
{
	if (p->failed)
		return;
	p->failed = true;
	p->ctx->nsyntax++;
	if (p->tok.kind == T_ERROR)
		return;			/* the lexer said what is wrong here */
	if (p->tok.kind == T_EOF)
		dt_error(p->ctx, p->tok.loc, D_SYNTAX, "syntax error at end of input: expected %s",
			 expected);
	else
		dt_error(p->ctx, p->tok.loc, D_SYNTAX, "syntax error near %s: expected %s",
			 dt_tok_spelling(&p->lex, &p->tok), expected);
}

void dt_refuse(struct dt_parser *p, struct dt_loc loc, enum dt_errtag tag, const char *fmt, ...)
{
	if (p->failed)
		return;
	p->failed = true;
	p->ctx->nsyntax++;
	char msg[256];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	dt_error(p->ctx, loc, tag, "%s", msg);
}

void dt_parse_reported(struct dt_parser *p)
{
	if (p->failed)
		return;
	p->failed = true;
	p->ctx->nsyntax++;
}

bool dt_expect(struct dt_parser *p, enum dt_tok kind, const char *what)
{
	if (p->tok.kind != kind) {
		dt_syntax_error(p, what);
		return false;
	}
	dt_advance(p, DT_LEX_NORMAL);
	return true;
}

struct dt_node *dt_node_new(struct dt_ctx *ctx, enum dt_node_kind kind, struct dt_loc loc)
{
	struct dt_node *n = dt_alloc(ctx, sizeof(*n));
	n->kind = kind;
	n->loc = loc;
	n->depth = 1;
	return n;
}

void dt_node_replace(struct dt_node *n, const struct dt_node *with)
{
	struct dt_node *next = n->next;
	*n = *with;
	n->next = next;
}

bool dt_node_fix_depth(struct dt_parser *p, struct dt_node *n)
{
	int d = 0;
	const struct dt_node *kids[3] = { n->cond, n->left, n->right };
	for (int i = 0; i < 3; i++)
		if (kids[i] && kids[i]->depth > d)
			d = kids[i]->depth;
	for (const struct dt_node *a = n->args; a; a = a->next)
		if (a->depth > d)
			d = a->depth;
	n->depth = d + 1;
	if (n->depth > DT_MAX_DEPTH) {
		dt_refuse(p, n->loc, D_NESTING, "expression is nested more than %d levels deep",
			  DT_MAX_DEPTH);
		return false;
	}
	return true;
}

/* Split a description into its four fields, filling from the right. */
static struct dt_probedesc *probe_desc(struct dt_parser *p, const struct dt_token *t)
{
	struct dt_probedesc *d = dt_alloc(p->ctx, sizeof(*d));
	const char *fields[4] = { "", "", "", "" };
	const char *parts[5];
	size_t lens[5];
	int n = 0;
	const char *s = t->text, *end = t->text + t->len;

	d->text = t->text;
	d->loc = t->loc;
	for (const char *c = s;; c++) {
		if (c == end || *c == ':') {
			if (n == 4) {
				dt_refuse(p, t->loc, D_PDESC_INVAL, "invalid probe description %s: "
					  "more than four fields", dt_quote(p->ctx, t->text, t->len, 64));
				return NULL;
			}
			parts[n] = s;
			lens[n++] = (size_t)(c - s);
			s = c + 1;
			if (c == end)
				break;
		}
	}
	for (int i = 0; i < n; i++) {
		int open = 0;
		for (size_t j = 0; j < lens[i]; j++) {
			unsigned char ch = (unsigned char)parts[i][j];
			if (ch == '[')
				open++;
			else if (ch == ']' && open > 0)
				open--;
			if (ch <= ' ' || ch >= 0x7f || strchr("{}/,;\"'()", ch) || open > 1) {
				dt_refuse(p, t->loc, D_PDESC_INVAL, "invalid probe description %s: "
					  "bad character or nested [", dt_quote(p->ctx, t->text, t->len, 64));
				return NULL;
			}
		}
		if (open) {
			dt_refuse(p, t->loc, D_PDESC_INVAL, "invalid probe description %s: '[' "
				  "without ']'", dt_quote(p->ctx, t->text, t->len, 64));
			return NULL;
		}
		fields[4 - n + i] = dt_strndup(p->ctx, parts[i], lens[i]);
	}
	d->provider = fields[0];
	d->module = fields[1];
	d->function = fields[2];
	d->name = fields[3];
	return d;
}

/* Statements D does not have, refused with advice. */
static bool refuse_control(struct dt_parser *p)
{
	switch (p->tok.kind) {
	case T_KW_IF: case T_KW_ELSE: case T_KW_FOR: case T_KW_WHILE: case T_KW_DO:
	case T_KW_SWITCH: case T_KW_CASE: case T_KW_DEFAULT: case T_KW_RETURN:
	case T_KW_BREAK: case T_KW_CONTINUE: case T_KW_GOTO:
		dt_refuse(p, p->tok.loc, D_UNSUPPORTED, "'%s' statements are not supported in D: "
			  "use a predicate (/condition/) or the ?: operator", p->tok.text);
		return true;
	case T_LBRACE:
		dt_refuse(p, p->tok.loc, D_UNSUPPORTED, "nested blocks are not supported in D");
		return true;
	default:
		return false;
	}
}

static struct dt_stmt *new_stmt(struct dt_parser *p, enum dt_stmt_kind kind, struct dt_loc loc)
{
	struct dt_stmt *s = dt_alloc(p->ctx, sizeof(*s));
	s->kind = kind;
	s->loc = loc;
	return s;
}

/* @name[keys] = func(args); the checker resolves the name and the function. */
static struct dt_stmt *parse_aggregation(struct dt_parser *p)
{
	struct dt_node *name = dt_node_new(p->ctx, DT_N_AGGNAME, p->tok.loc);
	name->str = p->tok.text;
	name->len = p->tok.len;
	dt_advance(p, DT_LEX_NORMAL);
	if (p->tok.kind == T_LBRACKET) {
		dt_advance(p, DT_LEX_NORMAL);
		name->args = dt_parse_args(p, T_RBRACKET, &name->nargs);
		if (p->failed)
			return NULL;
		if (p->tok.kind == T_LBRACKET) {
			dt_refuse(p, p->tok.loc, D_AGG_MDIM, "aggregation @%s has one key tuple: "
				  "write @%s[k1, k2], not @%s[k1][k2]", name->str, name->str, name->str);
			return NULL;
		}
	}
	switch (p->tok.kind) {
	case T_ASSIGN:
		break;
	case T_SEMI: case T_RBRACE: case T_COMMA: case T_EOF:
		dt_refuse(p, name->loc, D_AGG_NULL, "@%s alone has no effect: assign it an "
			  "aggregating function, e.g. @%s = count()", name->str, name->str);
		return NULL;
	case T_ADD_ASSIGN: case T_SUB_ASSIGN: case T_MUL_ASSIGN: case T_DIV_ASSIGN:
	case T_MOD_ASSIGN: case T_AND_ASSIGN: case T_OR_ASSIGN: case T_XOR_ASSIGN:
	case T_SHL_ASSIGN: case T_SHR_ASSIGN: case T_INC: case T_DEC:
		dt_refuse(p, p->tok.loc, D_AGG_FUNC, "aggregations are only assigned with =, "
			  "e.g. @%s = sum(x)", name->str);
		return NULL;
	default:
		dt_syntax_error(p, "'=' after the aggregation");
		return NULL;
	}
	dt_advance(p, DT_LEX_NORMAL);
	name->right = dt_parse_assign(p);
	if (p->failed || !dt_node_fix_depth(p, name))
		return NULL;
	struct dt_stmt *s = new_stmt(p, DT_S_AGG, name->loc);
	s->expr = name;
	return s;
}

/* One statement, which may be several separated by commas; appends them. */
static void parse_statement(struct dt_parser *p, struct dt_stmt ***tail, int *count)
{
	if (p->tok.kind == T_SEMI) {
		dt_advance(p, DT_LEX_NORMAL);
		return;
	}
	if (refuse_control(p))
		return;
	for (;;) {
		struct dt_stmt *s;
		if (p->tok.kind == T_AGG) {
			s = parse_aggregation(p);
		} else {
			struct dt_loc loc = p->tok.loc;
			struct dt_node *e = dt_parse_assign(p);
			s = p->failed ? NULL : new_stmt(p, DT_S_EXPR, loc);
			if (s)
				s->expr = e;
		}
		if (!s)
			return;
		**tail = s;
		*tail = &s->next;
		(*count)++;
		if (p->tok.kind != T_COMMA)
			break;
		dt_advance(p, DT_LEX_NORMAL);
	}
	if (p->tok.kind == T_SEMI)
		dt_advance(p, DT_LEX_NORMAL);
	else if (p->tok.kind != T_RBRACE)
		dt_syntax_error(p, "';' or '}' after the statement");
}

/* After a failed statement: skip to its ';' (consumed) or the clause's '}'. */
static void recover_statement(struct dt_parser *p)
{
	int depth = 0;
	p->has_ahead = false;
	while (p->tok.kind != T_EOF) {
		if (p->tok.kind == T_LBRACE) {
			depth++;
		} else if (p->tok.kind == T_RBRACE) {
			if (depth == 0)
				return;
			depth--;
		} else if (p->tok.kind == T_SEMI && depth == 0) {
			dt_advance(p, DT_LEX_NORMAL);
			return;
		}
		dt_advance(p, DT_LEX_NORMAL);
	}
}

static void parse_body(struct dt_parser *p, struct dt_clause *c)
{
	struct dt_stmt **tail = &c->stmts;

	p->braces = 1;
	dt_advance(p, DT_LEX_NORMAL);		/* the '{' */
	while (p->tok.kind != T_RBRACE && p->tok.kind != T_EOF && !p->ctx->stopped) {
		parse_statement(p, &tail, &c->nstmts);
		if (p->failed) {
			recover_statement(p);
			p->failed = false;
		}
	}
	if (p->tok.kind != T_RBRACE) {
		dt_syntax_error(p, "'}' to end the clause");
		return;
	}
	p->braces = 0;
	dt_advance(p, DT_LEX_CLAUSE_START);
}

static void parse_clause(struct dt_parser *p)
{
	struct dt_clause *c = dt_alloc(p->ctx, sizeof(*c));
	struct dt_probedesc **dtail = &c->probes;

	c->loc = p->tok.loc;
	for (;;) {
		if (p->tok.kind != T_PDESC) {
			dt_syntax_error(p, "a probe description");
			return;
		}
		struct dt_probedesc *d = probe_desc(p, &p->tok);
		if (!d)
			return;
		*dtail = d;
		dtail = &d->next;
		c->nprobes++;
		dt_advance(p, DT_LEX_NORMAL);
		if (p->tok.kind != T_COMMA)
			break;
		dt_advance(p, DT_LEX_PDESC);
	}
	if (p->tok.kind == T_SLASH) {
		dt_advance(p, DT_LEX_NORMAL);
		p->in_predicate = true;
		c->predicate = dt_parse_expr(p);
		p->in_predicate = false;
		if (p->failed || !dt_expect(p, T_SLASH, "'/' to end the predicate"))
			return;
	}
	if (p->tok.kind == T_LBRACE) {
		parse_body(p, c);
		if (p->failed)
			return;
	} else if (p->ctx->probespec && p->tok.kind == T_EOF) {
		c->default_action = true;
	} else {
		dt_syntax_error(p, c->predicate ? "'{' and the actions after the predicate" :
				"a predicate (/.../) or actions ({...}) after the probe description");
		return;
	}
	c->index = p->ctx->prog->nclauses++;
	*p->clauses_tail = c;
	p->clauses_tail = &c->next;
}

/* int a[4][2]: a fixed-size array variable (held by reference), its first '[' consumed. */
static void parse_fixed_dims(struct dt_parser *p, struct dt_decl *d)
{
	struct dt_loc loc = p->tok.loc;
	if (p->tok.value == 0 || p->tok.value > UINT32_MAX) {
		dt_refuse(p, loc, D_DECL_ARRBIG, "array dimension too big");
		return;
	}
	uint32_t first = (uint32_t)p->tok.value;
	dt_advance(p, DT_LEX_NORMAL);
	if (!dt_expect(p, T_RBRACKET, "']' after the array size") ||
	    !dt_parse_array_dims(p, &d->type))
		return;
	if (!dt_ctf_array_of(p->ctx, d->type, first, loc, &d->type))
		dt_parse_reported(p);
}

static void parse_declarator_keys(struct dt_parser *p, struct dt_decl *d)
{
	dt_advance(p, DT_LEX_NORMAL);		/* the '[' */
	if (p->tok.kind == T_INT) {
		parse_fixed_dims(p, d);
		return;
	}
	if (p->tok.kind == T_RBRACKET) {
		dt_refuse(p, p->tok.loc, D_DECL_ARRSUB, "positive integral constant expression "
			  "or key types expected: int %s[4] or int %s[int]", d->name, d->name);
		return;
	}
	d->is_array = true;
	for (;;) {
		struct dt_loc loc = p->tok.loc;
		struct dt_type key;
		if (!dt_parse_type(p, &key))
			return;
		if (key.kind == DT_TYPE_VOID) {
			dt_refuse(p, loc, D_KEY_TYPE, "void is not a valid key type");
			return;
		}
		if (d->nkeys == DT_MAX_KEYS) {
			dt_refuse(p, loc, D_KEY_TYPE, "more than %d keys", DT_MAX_KEYS);
			return;
		}
		d->keys[d->nkeys++] = key;
		if (p->tok.kind != T_COMMA)
			break;
		dt_advance(p, DT_LEX_NORMAL);
	}
	dt_expect(p, T_RBRACKET, "',' or ']' after the key type");
}

static void parse_declaration(struct dt_parser *p)
{
	enum dt_scope scope = DT_SCOPE_GLOBAL;
	struct dt_loc loc = p->tok.loc;
	struct dt_type type;

	switch (p->tok.kind) {
	case T_KW_SELF: scope = DT_SCOPE_THREAD; dt_advance(p, DT_LEX_NORMAL); break;
	case T_KW_THIS: scope = DT_SCOPE_CLAUSE; dt_advance(p, DT_LEX_NORMAL); break;
	case T_KW_TYPEDEF:
		dt_parse_typedef(p);
		return;
	case T_KW_EXTERN:
		dt_parse_extern(p);
		return;
	case T_KW_STATIC: case T_KW_REGISTER: case T_KW_AUTO:
		dt_refuse(p, loc, D_DECL_BADCLASS, "'%s' declarations are not supported",
			  p->tok.text);
		return;
	case T_KW_INLINE:
		dt_parse_inline(p);
		return;
	case T_KW_TRANSLATOR:
		dt_parse_translator(p);
		return;
	case T_KW_PROVIDER: case T_KW_PROBE:
	case T_KW_IMPORT: case T_KW_COUNTER: case T_KW_USERLAND:
		dt_refuse(p, loc, D_UNSUPPORTED, "'%s' is not supported", p->tok.text);
		return;
	default:
		break;
	}
	if (!dt_at_type(p)) {
		dt_syntax_error(p, "a type");
		return;
	}
	bool tagged = p->tok.kind == T_KW_STRUCT || p->tok.kind == T_KW_UNION ||
		      p->tok.kind == T_KW_ENUM;
	if (!dt_parse_type(p, &type))
		return;
	if (tagged && p->tok.kind == T_SEMI) {	/* struct s { ... }; declares the type alone */
		dt_advance(p, DT_LEX_CLAUSE_START);
		return;
	}
	struct dt_type base = type;
	for (;;) {
		type = base;		/* as in C, each declarator has its own '*'s */
		if (!dt_parse_pointer_stars(p, &type))
			return;
		if (p->tok.kind != T_IDENT) {
			dt_syntax_error(p, "a variable name");
			return;
		}
		struct dt_decl *d = dt_alloc(p->ctx, sizeof(*d));
		*d = (struct dt_decl){ .loc = p->tok.loc, .scope = scope, .name = p->tok.text,
				       .type = type, .before_clause = p->ctx->prog->nclauses };
		dt_advance(p, DT_LEX_NORMAL);
		if (p->tok.kind == T_LBRACKET)
			parse_declarator_keys(p, d);
		if (p->failed)
			return;
		if (p->tok.kind == T_ASSIGN) {
			dt_refuse(p, p->tok.loc, D_UNSUPPORTED, "D declarations have no initializers: "
				  "assign %s in a BEGIN clause", d->name);
			return;
		}
		if (p->tok.kind == T_LPAREN) {
			dt_refuse(p, p->tok.loc, D_UNSUPPORTED, "function declarations are not "
				  "supported");
			return;
		}
		if (type.kind == DT_TYPE_VOID) {
			dt_refuse(p, d->loc, D_DECL_VOIDOBJ, "%s cannot be declared void", d->name);
			return;
		}
		if (d->is_array && scope == DT_SCOPE_CLAUSE) {
			dt_refuse(p, d->loc, D_DECL_LOCASSC, "clause-local (this->) associative "
				  "arrays are not supported: %s", d->name);
			return;
		}
		*p->decls_tail = d;
		p->decls_tail = &d->next;
		if (p->tok.kind != T_COMMA)
			break;
		dt_advance(p, DT_LEX_NORMAL);
	}
	if (p->tok.kind != T_SEMI) {
		dt_syntax_error(p, "';' after the declaration");
		return;
	}
	dt_advance(p, DT_LEX_CLAUSE_START);
}

/* After a failed clause or declaration: skip past its '}' or ';'. */
static void recover_top(struct dt_parser *p)
{
	int depth = p->braces;
	p->has_ahead = false;
	while (p->tok.kind != T_EOF) {
		if (p->tok.kind == T_LBRACE) {
			depth++;
		} else if (p->tok.kind == T_RBRACE) {
			if (--depth <= 0)
				break;
		} else if (p->tok.kind == T_SEMI && depth <= 0) {
			break;
		}
		dt_advance(p, DT_LEX_NORMAL);
	}
	bool brace = p->tok.kind == T_RBRACE;
	p->braces = 0;
	p->failed = false;
	p->in_predicate = false;
	p->depth = 0;
	if (p->tok.kind != T_EOF)
		dt_advance(p, DT_LEX_CLAUSE_START);
	if (brace && p->tok.kind == T_SEMI)	/* the '};' ending a refused struct or translator */
		dt_advance(p, DT_LEX_CLAUSE_START);
}

/* At a clause start the lexer returns keywords and typedef names as such. */
static bool at_declaration(const struct dt_parser *p)
{
	return p->tok.kind == T_IDENT || (p->tok.kind >= T_KW_AUTO && p->tok.kind <= T_KW_XLATE);
}

void dt_parse_program(struct dt_ctx *ctx, const char *src, size_t len)
{
	struct dt_parser p = { .ctx = ctx };

	p.decls_tail = &ctx->decls;
	p.clauses_tail = &ctx->prog->clauses;
	dt_lex_init(&p.lex, ctx, src, len);
	dt_advance(&p, DT_LEX_CLAUSE_START);
	while (p.tok.kind != T_EOF && !ctx->stopped) {
		if (at_declaration(&p))
			parse_declaration(&p);
		else
			parse_clause(&p);
		if (p.failed)
			recover_top(&p);
	}
	ctx->end = p.tok.loc;
	if (ctx->prog->nclauses == 0 && ctx->prog->nerrors == 0) {
		ctx->nsyntax++;
		dt_error(ctx, ctx->end, D_EMPTY, "program has no probe clauses");
	}
}
