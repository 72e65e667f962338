// SPDX-License-Identifier: BSD-2-Clause
/*
 * The D parser, types: integer specifier combinations, string, void,
 * typedef names (D's built-in ones, the program's and the kernel's),
 * struct, union and enum references and definitions with their members
 * and bit-fields, the '*'s of pointers, the '[N]'s of arrays, and
 * typedef declarations. Definitions go to the program's CTF dictionary
 * (dt_ctf_decl.c) as soon as they are read, so a later cast, sizeof or
 * declaration sees them, as in C.
 *
 * Invariant: as in dt_parse.c, every function that fails has reported
 * (p->failed is set), by dt_refuse/dt_syntax_error or, for an error the
 * type library reported, dt_parse_reported.
 */
#include <stdio.h>
#include <string.h>
#include "dt_impl.h"

/* Types: integer specifier combinations, string, void, struct/union/enum, typedef names. */
bool dt_token_starts_type(struct dt_parser *p, const struct dt_token *t)
{
	switch (t->kind) {
	case T_KW_SIGNED: case T_KW_UNSIGNED: case T_KW_CHAR: case T_KW_SHORT: case T_KW_INT:
	case T_KW_LONG: case T_KW_STRING: case T_KW_VOID: case T_KW_FLOAT: case T_KW_DOUBLE:
	case T_KW_CONST: case T_KW_VOLATILE: case T_KW_STRUCT: case T_KW_UNION: case T_KW_ENUM:
		return true;
	case T_IDENT:
		return dt_typedef_lookup(t->text, t->len) != NULL ||
		       dt_ctf_typedef(p->ctx, t->text, t->len, NULL);
	default:
		return false;
	}
}

bool dt_at_type(struct dt_parser *p)
{
	return dt_token_starts_type(p, &p->tok);
}

/* The '[N]'s after a member's name: an array type of each, innermost last, as C reads them. */
bool dt_parse_array_dims(struct dt_parser *p, struct dt_type *type)
{
	uint32_t dims[8];
	int n = 0;
	while (p->tok.kind == T_LBRACKET) {
		struct dt_loc loc = p->tok.loc;
		dt_advance(p, DT_LEX_NORMAL);
		if (p->tok.kind != T_INT || n == 8) {
			dt_refuse(p, loc, D_DECL_ARRSUB, "positive integral constant expression "
				  "expected as array size");
			return false;
		}
		if (p->tok.value == 0 || p->tok.value > UINT32_MAX) {
			dt_refuse(p, loc, D_DECL_ARRBIG, "array dimension too big");
			return false;
		}
		dims[n++] = (uint32_t)p->tok.value;
		dt_advance(p, DT_LEX_NORMAL);
		if (!dt_expect(p, T_RBRACKET, "']' after the array size"))
			return false;
	}
	while (n-- > 0)
		if (!dt_ctf_array_of(p->ctx, *type, dims[n], p->tok.loc, type)) {
			dt_parse_reported(p);
			return false;
		}
	return true;
}

/* The members of a struct or union, after its '{' up to its '}' (consumed). */
static bool parse_members(struct dt_parser *p, struct dt_member_decl **out, int *count)
{
	struct dt_member_decl *m = dt_alloc(p->ctx, sizeof(*m) * DT_MAX_MEMBERS);
	int n = 0;
	dt_advance(p, DT_LEX_NORMAL);		/* the '{' */
	while (p->tok.kind != T_RBRACE) {
		struct dt_type base;
		if (!dt_at_type(p)) {
			dt_syntax_error(p, "a member's type or '}'");
			return false;
		}
		if (!dt_parse_type(p, &base))
			return false;
		for (;;) {
			struct dt_member_decl d = { .type = base, .bits = -1, .loc = p->tok.loc };
			if (!dt_parse_pointer_stars(p, &d.type))
				return false;
			if (p->tok.kind == T_IDENT) {
				d.name = dt_strndup(p->ctx, p->tok.text, p->tok.len);
				dt_advance(p, DT_LEX_NORMAL);
			} else if (p->tok.kind != T_COLON) {
				dt_syntax_error(p, "a member name");
				return false;
			}
			if (!dt_parse_array_dims(p, &d.type))
				return false;
			if (p->tok.kind == T_COLON) {
				dt_advance(p, DT_LEX_NORMAL);
				if (p->tok.kind != T_INT || p->tok.value > 64) {
					dt_refuse(p, p->tok.loc, D_DECL_BFCONST, "positive integral "
						  "constant expression expected as bit-field size");
					return false;
				}
				d.bits = (int)p->tok.value;
				dt_advance(p, DT_LEX_NORMAL);
			}
			if (!d.name && d.bits != 0) {
				dt_refuse(p, d.loc, D_DECL_MNAME, "member name missing");
				return false;
			}
			if (n == DT_MAX_MEMBERS) {
				dt_refuse(p, d.loc, D_UNSUPPORTED, "more than %d members", DT_MAX_MEMBERS);
				return false;
			}
			m[n++] = d;
			if (p->tok.kind != T_COMMA)
				break;
			dt_advance(p, DT_LEX_NORMAL);
		}
		if (!dt_expect(p, T_SEMI, "';' after the member"))
			return false;
	}
	dt_advance(p, DT_LEX_NORMAL);		/* the '}' */
	*out = m;
	*count = n;
	return true;
}

/* enum [NAME] { A, B = 5, ... } after the name, from its '{' (consumed to the '}'). */
static bool parse_enumerators(struct dt_parser *p, const char *name, struct dt_loc loc,
			      struct dt_type *type)
{
	const char **names = dt_alloc(p->ctx, sizeof(*names) * DT_MAX_MEMBERS);
	int64_t *values = dt_alloc(p->ctx, sizeof(*values) * DT_MAX_MEMBERS);
	struct dt_loc *locs = dt_alloc(p->ctx, sizeof(*locs) * DT_MAX_MEMBERS);
	int n = 0;
	int64_t next = 0;
	dt_advance(p, DT_LEX_NORMAL);		/* the '{' */
	while (p->tok.kind != T_RBRACE) {
		if (p->tok.kind != T_IDENT) {
			dt_syntax_error(p, "an enumerator");
			return false;
		}
		if (n == DT_MAX_MEMBERS) {
			dt_refuse(p, p->tok.loc, D_UNSUPPORTED, "more than %d enumerators",
				  DT_MAX_MEMBERS);
			return false;
		}
		names[n] = dt_strndup(p->ctx, p->tok.text, p->tok.len);
		locs[n] = p->tok.loc;
		dt_advance(p, DT_LEX_NORMAL);
		if (p->tok.kind == T_ASSIGN) {
			dt_advance(p, DT_LEX_NORMAL);
			struct dt_node *e = dt_parse_assign(p);
			if (!e)
				return false;
			bool neg = e->kind == DT_N_UNARY && e->op == DT_OP_NEG &&
				   e->left->kind == DT_N_INT;
			if (e->kind != DT_N_INT && !neg) {
				dt_refuse(p, e->loc, D_DECL_ENCONST, "enumerator '%s' must be assigned "
					  "to an integral constant expression", names[n]);
				return false;
			}
			next = neg ? -(int64_t)e->left->value : (int64_t)e->value;
		}
		values[n++] = next++;
		if (p->tok.kind != T_COMMA)
			break;
		dt_advance(p, DT_LEX_NORMAL);
	}
	if (!dt_expect(p, T_RBRACE, "',' or '}' after the enumerator"))
		return false;
	if (!dt_ctf_enum_define(p->ctx, name, names, values, locs, n, loc, type)) {
		dt_parse_reported(p);
		return false;
	}
	return true;
}

static bool parse_tagged_type_inner(struct dt_parser *p, struct dt_type *type);

/* struct, union or enum: a reference (struct NAME) or a definition (struct [NAME] {...}). */
static bool parse_tagged_type(struct dt_parser *p, struct dt_type *type)
{
	/* Definitions nest (a member's type may be defined in place): bound the recursion. */
	if (++p->depth > DT_MAX_DEPTH) {
		dt_refuse(p, p->tok.loc, D_NESTING, "struct definitions are nested more than %d "
			  "levels deep", DT_MAX_DEPTH);
		p->depth--;
		return false;
	}
	bool ok = parse_tagged_type_inner(p, type);
	p->depth--;
	return ok;
}

static bool parse_tagged_type_inner(struct dt_parser *p, struct dt_type *type)
{
	enum dt_tok kw = p->tok.kind;
	struct dt_loc loc = p->tok.loc;
	const char *name = NULL;
	dt_advance(p, DT_LEX_NORMAL);
	if (p->tok.kind == T_IDENT) {
		name = dt_strndup(p->ctx, p->tok.text, p->tok.len);
		dt_advance(p, DT_LEX_NORMAL);
	} else if (p->tok.kind != T_LBRACE) {
		dt_syntax_error(p, kw == T_KW_ENUM ? "an enum's name or '{'" : "a name or '{'");
		return false;
	}
	if (kw == T_KW_ENUM) {
		if (p->tok.kind == T_LBRACE) {
			p->braces++;
			bool ok = parse_enumerators(p, name, loc, type);
			p->braces -= ok;
			return ok;
		}
		char cname[160];
		snprintf(cname, sizeof(cname), "enum %s", name);
		if (!dt_ctf_lookup(p->ctx, cname, type)) {
			dt_refuse(p, loc, D_DECL_INCOMPLETE, "incomplete struct/union/enum %s", cname);
			return false;
		}
		return true;
	}
	bool is_union = kw == T_KW_UNION;
	if (p->tok.kind != T_LBRACE) {
		if (!dt_ctf_sou_ref(p->ctx, is_union, name, type)) {
			dt_refuse(p, loc, D_UNKNOWN, "failed to declare %s %s", is_union ? "union" :
				  "struct", name);
			return false;
		}
		return true;
	}
	struct dt_member_decl *members;
	int n;
	p->braces++;			/* an error inside skips to its '}' (recover_top) */
	if (!parse_members(p, &members, &n))
		return false;
	p->braces--;
	if (!dt_ctf_sou_define(p->ctx, is_union, name, members, n, loc, type)) {
		dt_parse_reported(p);
		return false;
	}
	return true;
}

bool dt_parse_type(struct dt_parser *p, struct dt_type *type)
{
	int sign = 0, unsign = 0, chars = 0, shorts = 0, ints = 0, longs = 0;
	struct dt_loc loc = p->tok.loc;

	while (p->tok.kind == T_KW_CONST || p->tok.kind == T_KW_VOLATILE)
		dt_advance(p, DT_LEX_NORMAL);
	switch (p->tok.kind) {
	case T_KW_STRUCT: case T_KW_UNION: case T_KW_ENUM:
		if (!parse_tagged_type(p, type))
			return false;
		while (p->tok.kind == T_KW_CONST || p->tok.kind == T_KW_VOLATILE)
			dt_advance(p, DT_LEX_NORMAL);
		return true;
	case T_KW_FLOAT: case T_KW_DOUBLE:
		*type = (struct dt_type){ .kind = DT_TYPE_FLOAT,
					  .size = p->tok.kind == T_KW_FLOAT ? 4 : 8 };
		dt_advance(p, DT_LEX_NORMAL);
		return true;
	case T_KW_STRING:
		*type = dt_type_string;
		dt_advance(p, DT_LEX_NORMAL);
		return true;
	case T_KW_VOID:
		*type = dt_type_void;
		dt_advance(p, DT_LEX_NORMAL);
		return true;
	case T_IDENT:
		if (dt_typedef_lookup(p->tok.text, p->tok.len))
			*type = *dt_typedef_lookup(p->tok.text, p->tok.len);
		else if (!dt_ctf_typedef(p->ctx, p->tok.text, p->tok.len, type))
			break;
		dt_advance(p, DT_LEX_NORMAL);
		return true;
	default:
		break;
	}
	for (;; dt_advance(p, DT_LEX_NORMAL)) {
		switch (p->tok.kind) {
		case T_KW_SIGNED: sign++; continue;
		case T_KW_UNSIGNED: unsign++; continue;
		case T_KW_CHAR: chars++; continue;
		case T_KW_SHORT: shorts++; continue;
		case T_KW_INT: ints++; continue;
		case T_KW_LONG: longs++; continue;
		case T_KW_CONST: case T_KW_VOLATILE: continue;
		default: break;
		}
		break;
	}
	if (sign + unsign + chars + shorts + ints + longs == 0) {
		dt_syntax_error(p, "a type");
		return false;
	}
	if (sign + unsign > 1 || chars + shorts + (longs > 0) > 1 || ints > 1 || longs > 2) {
		dt_refuse(p, loc, D_DECL_COMBO, "invalid combination of type specifiers");
		return false;
	}
	int size = chars ? 1 : shorts ? 2 : longs ? 8 : 4;
	*type = dt_type_c_int((unsigned)size, !unsign, longs == 2);
	return true;
}

bool dt_parse_pointer_stars(struct dt_parser *p, struct dt_type *type)
{
	while (p->tok.kind == T_STAR) {
		struct dt_loc loc = p->tok.loc;
		if (type->kind == DT_TYPE_STRING) {
			dt_refuse(p, loc, D_UNSUPPORTED, "pointers to strings are not supported");
			return false;
		}
		if (type->kind == DT_TYPE_PTR && type->levels == DT_MAX_PTR_LEVELS) {
			dt_refuse(p, loc, D_UNSUPPORTED, "more than %d levels of pointers are not "
				  "supported", DT_MAX_PTR_LEVELS);
			return false;
		}
		*type = dt_type_pointer_to(*type);
		dt_advance(p, DT_LEX_NORMAL);
		while (p->tok.kind == T_KW_CONST || p->tok.kind == T_KW_VOLATILE)
			dt_advance(p, DT_LEX_NORMAL);
	}
	return true;
}


/* typedef TYPE NAME[, NAME...]; */
void dt_parse_typedef(struct dt_parser *p)
{
	struct dt_type base;
	dt_advance(p, DT_LEX_NORMAL);		/* typedef */
	if (!dt_at_type(p)) {
		dt_syntax_error(p, "a type after typedef");
		return;
	}
	if (!dt_parse_type(p, &base))
		return;
	for (;;) {
		struct dt_type type = base;
		if (!dt_parse_pointer_stars(p, &type))
			return;
		if (p->tok.kind != T_IDENT) {
			dt_syntax_error(p, "the typedef's name");
			return;
		}
		struct dt_token name = p->tok;
		dt_advance(p, DT_LEX_NORMAL);
		if (!dt_parse_array_dims(p, &type))
			return;
		if (!dt_ctf_typedef_define(p->ctx, dt_strndup(p->ctx, name.text, name.len), type,
					   name.loc)) {
			dt_parse_reported(p);
			return;
		}
		if (p->tok.kind != T_COMMA)
			break;
		dt_advance(p, DT_LEX_NORMAL);
	}
	if (p->tok.kind != T_SEMI) {
		dt_syntax_error(p, "';' after the typedef");
		return;
	}
	dt_advance(p, DT_LEX_CLAUSE_START);
}

