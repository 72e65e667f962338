// SPDX-License-Identifier: BSD-2-Clause
/*
 * The D parser, expressions: C's grammar and precedence (plus D's ^^),
 * by recursive descent for the unary, postfix and primary forms and by
 * precedence climbing over the binary operator table. sizeof(type) and
 * offsetof(type, member) are constants here; a kernel symbol with a
 * declared type (the kernel's CTF) is the object at its address.
 *
 * Invariants: every function returns NULL exactly when p->failed is set;
 * recursion is bounded (DT_MAX_DEPTH nested unary/parenthesised levels,
 * and every node's depth is checked), so no input exhausts the stack;
 * in a predicate, a '/' followed by '{' (or the end of a -n argument)
 * ends the expression instead of dividing.
 */
#include <string.h>
#include "dt_impl.h"

/* Binary operators, loosest first; all left-associative. */
static const struct {
	enum dt_tok tok;
	int prec;
	enum dt_op op;
} binary_ops[] = {
	{ T_LOR, 1, DT_OP_LOR },     { T_LXOR, 2, DT_OP_LXOR },   { T_LAND, 3, DT_OP_LAND },
	{ T_PIPE, 4, DT_OP_BOR },    { T_CARET, 5, DT_OP_BXOR },  { T_AMP, 6, DT_OP_BAND },
	{ T_EQ, 7, DT_OP_EQ },       { T_NE, 7, DT_OP_NE },
	{ T_LT, 8, DT_OP_LT },       { T_LE, 8, DT_OP_LE },       { T_GT, 8, DT_OP_GT },
	{ T_GE, 8, DT_OP_GE },
	{ T_SHL, 9, DT_OP_SHL },     { T_SHR, 9, DT_OP_SHR },
	{ T_PLUS, 10, DT_OP_ADD },   { T_MINUS, 10, DT_OP_SUB },
	{ T_STAR, 11, DT_OP_MUL },   { T_SLASH, 11, DT_OP_DIV },  { T_PERCENT, 11, DT_OP_MOD },
};

/* Assignment operators: the arithmetic they do first (NONE for plain =). */
static const struct {
	enum dt_tok tok;
	enum dt_op op;
} assign_ops[] = {
	{ T_ASSIGN, DT_OP_NONE },      { T_ADD_ASSIGN, DT_OP_ADD },   { T_SUB_ASSIGN, DT_OP_SUB },
	{ T_MUL_ASSIGN, DT_OP_MUL },   { T_DIV_ASSIGN, DT_OP_DIV },   { T_MOD_ASSIGN, DT_OP_MOD },
	{ T_AND_ASSIGN, DT_OP_BAND },  { T_OR_ASSIGN, DT_OP_BOR },    { T_XOR_ASSIGN, DT_OP_BXOR },
	{ T_SHL_ASSIGN, DT_OP_SHL },   { T_SHR_ASSIGN, DT_OP_SHR },
};

static const struct {
	enum dt_tok tok;
	enum dt_op op;
} unary_ops[] = {
	{ T_MINUS, DT_OP_NEG }, { T_PLUS, DT_OP_PLUS }, { T_BANG, DT_OP_LNOT },
	{ T_TILDE, DT_OP_BNOT }, { T_INC, DT_OP_PREINC }, { T_DEC, DT_OP_PREDEC },
	{ T_STAR, DT_OP_DEREF },
};

static const char *const op_names[DT_OP_COUNT] = {
	[DT_OP_NONE] = "=", [DT_OP_ADD] = "+", [DT_OP_SUB] = "-", [DT_OP_MUL] = "*",
	[DT_OP_DIV] = "/", [DT_OP_MOD] = "%", [DT_OP_SHL] = "<<", [DT_OP_SHR] = ">>",
	[DT_OP_BAND] = "&", [DT_OP_BOR] = "|", [DT_OP_BXOR] = "^", [DT_OP_LAND] = "&&",
	[DT_OP_LOR] = "||", [DT_OP_LXOR] = "^^", [DT_OP_EQ] = "==", [DT_OP_NE] = "!=",
	[DT_OP_LT] = "<", [DT_OP_LE] = "<=", [DT_OP_GT] = ">", [DT_OP_GE] = ">=",
	[DT_OP_NEG] = "-", [DT_OP_PLUS] = "+", [DT_OP_BNOT] = "~", [DT_OP_LNOT] = "!",
	[DT_OP_DEREF] = "*", [DT_OP_ADDROF] = "&",
	[DT_OP_PREINC] = "pre++", [DT_OP_PREDEC] = "pre--", [DT_OP_POSTINC] = "post++",
	[DT_OP_POSTDEC] = "post--",
};

const char *dt_op_name(enum dt_op op)
{
	return (unsigned)op < DT_OP_COUNT && op_names[op] ? op_names[op] : "?";
}

static struct dt_node *make(struct dt_parser *p, enum dt_node_kind kind, enum dt_op op,
			    struct dt_loc loc, struct dt_node *left, struct dt_node *right)
{
	struct dt_node *n = dt_node_new(p->ctx, kind, loc);
	n->op = op;
	n->left = left;
	n->right = right;
	return dt_node_fix_depth(p, n) ? n : NULL;
}

struct dt_node *dt_parse_args(struct dt_parser *p, enum dt_tok closer, int *count)
{
	struct dt_node *head = NULL, **tail = &head;
	const char *what = closer == T_RPAREN ? "',' or ')'" : "',' or ']'";

	*count = 0;
	if (p->tok.kind == closer) {
		dt_advance(p, DT_LEX_NORMAL);
		return NULL;
	}
	for (;;) {
		struct dt_loc loc = p->tok.loc;
		struct dt_node *a = dt_parse_assign(p);
		if (!a)
			return NULL;
		if (++*count > DT_MAX_ARGS) {
			dt_refuse(p, loc, D_PROTO_LEN, "more than %d arguments", DT_MAX_ARGS);
			return NULL;
		}
		*tail = a;
		tail = &a->next;
		if (p->tok.kind != T_COMMA)
			break;
		dt_advance(p, DT_LEX_NORMAL);
	}
	return dt_expect(p, closer, what) ? head : NULL;
}

/*
 * A kernel symbol: `name or module`name (the backquote at hand, module
 * NULL or the identifier before it), as its address, a uintptr_t
 * constant. Scion's only module is kernel.
 */
static struct dt_node *parse_ksym(struct dt_parser *p, const struct dt_token *module)
{
	struct dt_loc loc = module ? module->loc : p->tok.loc;
	dt_advance(p, DT_LEX_NORMAL);		/* the backquote */
	if (p->tok.kind != T_IDENT) {
		dt_syntax_error(p, "a kernel symbol's name after '`'");
		return NULL;
	}
	struct dt_token name = p->tok;
	const char *mod = module ? dt_strndup(p->ctx, module->text, module->len) : "";
	const char *ksyms = p->ctx->args ? p->ctx->args->ksyms : NULL;
	uint64_t addr;
	if (module && strcmp(mod, "kernel")) {
		dt_refuse(p, loc, D_IDENT_UNDEF, "failed to resolve %s`%.*s: Scion's only module is "
			  "kernel", mod, (int)name.len, name.text);
		return NULL;
	}
	if (!ksyms) {
		dt_refuse(p, loc, D_UNSUPPORTED, "kernel symbols (%s`%.*s) need the kernel's symbol "
			  "list: scion trace passes it (dtc -K build/kernel.syms)", mod, (int)name.len,
			  name.text);
		return NULL;
	}
	if (!dt_ksym_lookup(ksyms, name.text, name.len, &addr)) {
		dt_refuse(p, loc, D_IDENT_UNDEF, "failed to resolve %s`%.*s: no such kernel symbol",
			  mod, (int)name.len, name.text);
		return NULL;
	}
	dt_advance(p, DT_LEX_NORMAL);
	struct dt_node *n = dt_node_new(p->ctx, DT_N_INT, loc);
	n->value = addr;
	n->type = dt_type_uint64;
	struct dt_type declared;
	char *sym = dt_strndup(p->ctx, name.text, name.len);
	if ((dt_extern_type(p->ctx, sym, &declared) || dt_ctf_object(p->ctx, sym, &declared)) &&
	    declared.kind != DT_TYPE_VOID) {
		/* `name is the object; &`name its address, typed (address_of wraps it). */
		n->kind = DT_N_FIELD;
		n->type = declared;
		n->str = sym;
	}
	return n;
}

/* sizeof(type), sizeof expression (checked later: DT_N_SIZEOF), offsetof(type, member). */
static struct dt_node *parse_sizeof(struct dt_parser *p);
static struct dt_node *parse_offsetof(struct dt_parser *p);
/* xlate < type > ( expression ): read through its members (dt_inline.c). */
static struct dt_node *parse_xlate(struct dt_parser *p);

static struct dt_node *parse_primary(struct dt_parser *p)
{
	struct dt_token t = p->tok;
	struct dt_node *n;

	switch (t.kind) {
	case T_INT:
		n = dt_node_new(p->ctx, DT_N_INT, t.loc);
		n->value = t.value;
		n->type = t.type;
		dt_advance(p, DT_LEX_NORMAL);
		return n;
	case T_STRING:
		n = dt_node_new(p->ctx, DT_N_STRING, t.loc);
		n->str = t.text;
		n->len = t.len;
		n->type = dt_type_string;
		dt_advance(p, DT_LEX_NORMAL);
		return n;
	case T_IDENT:
		if (dt_peek(p)->kind == T_BACKQUOTE) {
			dt_advance(p, DT_LEX_NORMAL);
			return parse_ksym(p, &t);
		}
		/* fall through */
	case T_AGG:
		n = dt_node_new(p->ctx, t.kind == T_IDENT ? DT_N_IDENT : DT_N_AGGNAME, t.loc);
		n->str = t.text;
		n->len = t.len;
		dt_advance(p, DT_LEX_NORMAL);
		return n;
	case T_KW_SELF:
	case T_KW_THIS:
		dt_advance(p, DT_LEX_NORMAL);
		if (!dt_expect(p, T_ARROW, t.kind == T_KW_SELF ? "'->' after self" :
			       "'->' after this"))
			return NULL;
		if (p->tok.kind != T_IDENT) {
			dt_syntax_error(p, "a variable name after '->'");
			return NULL;
		}
		n = dt_node_new(p->ctx, DT_N_VAR, t.loc);
		n->scope = t.kind == T_KW_SELF ? DT_SCOPE_THREAD : DT_SCOPE_CLAUSE;
		n->str = p->tok.text;
		n->len = p->tok.len;
		dt_advance(p, DT_LEX_NORMAL);
		return n;
	case T_LPAREN:
		dt_advance(p, DT_LEX_NORMAL);
		n = dt_parse_expr(p);
		if (!n || !dt_expect(p, T_RPAREN, "')'"))
			return NULL;
		return n;
	case T_BACKQUOTE:
		return parse_ksym(p, NULL);
	case T_KW_STRINGOF:
		/* stringof(x): a call of the function of that name (dt_funcs.c). */
		if (dt_peek(p)->kind != T_LPAREN) {
			dt_refuse(p, t.loc, D_UNSUPPORTED, "%s", "stringof without parentheses is "
				  "not supported: write stringof(x)");
			return NULL;
		}
		n = dt_node_new(p->ctx, DT_N_IDENT, t.loc);
		n->str = "stringof";
		n->len = 8;
		dt_advance(p, DT_LEX_NORMAL);
		return n;
	case T_KW_SIZEOF:
		return parse_sizeof(p);
	case T_KW_OFFSETOF:
		return parse_offsetof(p);
	case T_KW_XLATE:
		return parse_xlate(p);
	default:
		dt_syntax_error(p, "an expression");
		return NULL;
	}
}

static struct dt_node *parse_postfix(struct dt_parser *p)
{
	struct dt_node *n = parse_primary(p);

	while (n) {
		struct dt_token t = p->tok;
		switch (t.kind) {
		case T_LBRACKET: {
			/* a[k][j] indexes what a[k] holds (a pointer); an aggregation holds none. */
			if (n->kind == DT_N_INDEX && n->left->kind == DT_N_AGGNAME) {
				dt_refuse(p, t.loc, D_AGG_MDIM, "multi-dimensional aggregations are "
					  "not supported: write @a[k1, k2], not @a[k1][k2]");
				return NULL;
			}
			struct dt_node *idx = dt_node_new(p->ctx, DT_N_INDEX, n->loc);
			idx->left = n;
			idx->scope = n->scope;
			dt_advance(p, DT_LEX_NORMAL);
			if (p->tok.kind == T_RBRACKET) {
				dt_syntax_error(p, "a key");
				return NULL;
			}
			idx->args = dt_parse_args(p, T_RBRACKET, &idx->nargs);
			if (p->failed || !dt_node_fix_depth(p, idx))
				return NULL;
			n = idx;
			break;
		}
		case T_LPAREN: {
			if (n->kind != DT_N_IDENT) {
				dt_refuse(p, t.loc, D_FUNC_IDENT, "only a function name can be called");
				return NULL;
			}
			n->kind = DT_N_CALL;
			dt_advance(p, DT_LEX_NORMAL);
			n->args = dt_parse_args(p, T_RPAREN, &n->nargs);
			if (p->failed || !dt_node_fix_depth(p, n))
				return NULL;
			break;
		}
		case T_ARROW:
			dt_advance(p, DT_LEX_NORMAL);
			if (p->tok.kind != T_IDENT) {
				dt_syntax_error(p, "a member name after '->'");
				return NULL;
			}
			n = make(p, DT_N_MEMBER, DT_OP_NONE, t.loc, n, NULL);
			if (!n)
				return NULL;
			n->str = p->tok.text;
			n->len = p->tok.len;
			dt_advance(p, DT_LEX_NORMAL);
			break;
		case T_DOT:
			dt_advance(p, DT_LEX_NORMAL);
			if (p->tok.kind != T_IDENT) {
				dt_syntax_error(p, "a member name after '.'");
				return NULL;
			}
			n = make(p, DT_N_DOT, DT_OP_NONE, t.loc, n, NULL);
			if (!n)
				return NULL;
			n->str = dt_strndup(p->ctx, p->tok.text, p->tok.len);
			n->len = p->tok.len;
			dt_advance(p, DT_LEX_NORMAL);
			break;
		case T_INC:
		case T_DEC:
			dt_advance(p, DT_LEX_NORMAL);
			n = make(p, DT_N_INCDEC, t.kind == T_INC ? DT_OP_POSTINC : DT_OP_POSTDEC,
				 t.loc, n, NULL);
			break;
		default:
			return n;
		}
	}
	return NULL;
}

/* Recursion that builds no node of its own first: counted like parse_unary's. */
static bool enter(struct dt_parser *p, struct dt_loc loc)
{
	if (++p->depth <= DT_MAX_DEPTH)
		return true;
	dt_refuse(p, loc, D_NESTING, "expression is nested more than %d levels deep",
		  DT_MAX_DEPTH);
	p->depth--;
	return false;
}

static struct dt_node *parse_unary(struct dt_parser *p);

/* (type) expr: the node's type is the target type. */
static struct dt_node *parse_cast(struct dt_parser *p)
{
	struct dt_loc loc = p->tok.loc;
	struct dt_type type;

	dt_advance(p, DT_LEX_NORMAL);		/* the '(' */
	if (!dt_parse_type(p, &type))
		return NULL;
	if (!dt_parse_pointer_stars(p, &type))
		return NULL;
	if (!dt_expect(p, T_RPAREN, "')' after the type"))
		return NULL;
	struct dt_node *operand = parse_unary(p);
	if (!operand)
		return NULL;
	struct dt_node *n = make(p, DT_N_CAST, DT_OP_NONE, loc, operand, NULL);
	if (n)
		n->type = type;
	return n;
}

static struct dt_node *parse_unary_inner(struct dt_parser *p)
{
	struct dt_token t = p->tok;

	for (size_t i = 0; i < sizeof(unary_ops) / sizeof(unary_ops[0]); i++) {
		if (t.kind != unary_ops[i].tok)
			continue;
		dt_advance(p, DT_LEX_NORMAL);
		struct dt_node *operand = parse_unary(p);
		if (!operand)
			return NULL;
		enum dt_op op = unary_ops[i].op;
		bool incdec = op == DT_OP_PREINC || op == DT_OP_PREDEC;
		return make(p, incdec ? DT_N_INCDEC : DT_N_UNARY, op, t.loc, operand, NULL);
	}
	switch (t.kind) {
	case T_AMP: {
		/* &`name: the symbol's address (an untyped symbol's `name is its address too). */
		dt_advance(p, DT_LEX_NORMAL);
		struct dt_node *operand = parse_unary(p);
		if (!operand)
			return NULL;
		if (operand->kind == DT_N_INT)
			return operand;			/* an untyped symbol: already its address */
		return make(p, DT_N_UNARY, DT_OP_ADDROF, t.loc, operand, NULL);
	}
	case T_LPAREN: {
		/* A cast if a type name follows the '('. */
		bool type_follows = dt_token_starts_type(p, dt_peek(p));
		if (type_follows)
			return parse_cast(p);
		return parse_postfix(p);
	}
	default:
		return parse_postfix(p);
	}
}

static struct dt_node *parse_unary(struct dt_parser *p)
{
	if (!enter(p, p->tok.loc))
		return NULL;
	struct dt_node *n = parse_unary_inner(p);
	p->depth--;
	return p->failed ? NULL : n;
}

/* In a predicate, is the '/' at hand its end? */
static bool predicate_ends(struct dt_parser *p)
{
	if (!p->in_predicate || p->tok.kind != T_SLASH)
		return false;
	enum dt_tok next = dt_peek(p)->kind;
	return next == T_LBRACE || next == T_EOF;
}

static struct dt_node *parse_binary(struct dt_parser *p, int min_prec)
{
	struct dt_node *left = parse_unary(p);

	while (left) {
		size_t i = 0, n = sizeof(binary_ops) / sizeof(binary_ops[0]);
		while (i < n && binary_ops[i].tok != p->tok.kind)
			i++;
		if (i == n || binary_ops[i].prec < min_prec || predicate_ends(p))
			break;
		struct dt_loc loc = p->tok.loc;
		dt_advance(p, DT_LEX_NORMAL);
		struct dt_node *right = parse_binary(p, binary_ops[i].prec + 1);
		if (!right)
			return NULL;
		left = make(p, DT_N_BINARY, binary_ops[i].op, loc, left, right);
	}
	return left;
}

static struct dt_node *parse_ternary(struct dt_parser *p)
{
	struct dt_node *cond = parse_binary(p, 1);
	if (!cond || p->tok.kind != T_QUESTION)
		return cond;
	struct dt_loc loc = p->tok.loc;
	dt_advance(p, DT_LEX_NORMAL);
	if (!enter(p, loc))
		return NULL;
	struct dt_node *a = dt_parse_expr(p);
	struct dt_node *b = a && dt_expect(p, T_COLON, "':' in ?:") ? parse_ternary(p) : NULL;
	p->depth--;
	if (!b)
		return NULL;
	struct dt_node *n = dt_node_new(p->ctx, DT_N_TERNARY, loc);
	n->cond = cond;
	n->left = a;
	n->right = b;
	return dt_node_fix_depth(p, n) ? n : NULL;
}

struct dt_node *dt_parse_assign(struct dt_parser *p)
{
	struct dt_node *left = parse_ternary(p);
	if (!left)
		return NULL;
	for (size_t i = 0; i < sizeof(assign_ops) / sizeof(assign_ops[0]); i++) {
		if (p->tok.kind != assign_ops[i].tok)
			continue;
		struct dt_loc loc = p->tok.loc;
		dt_advance(p, DT_LEX_NORMAL);
		if (!enter(p, loc))
			return NULL;
		struct dt_node *right = dt_parse_assign(p);
		p->depth--;
		if (!right)
			return NULL;
		return make(p, DT_N_ASSIGN, assign_ops[i].op, loc, left, right);
	}
	return left;
}

static struct dt_node *size_constant(struct dt_parser *p, struct dt_loc loc, uint64_t v)
{
	struct dt_node *n = dt_node_new(p->ctx, DT_N_INT, loc);
	n->value = v;
	n->type = *dt_typedef_lookup("size_t", 6);
	return n;
}

static struct dt_node *parse_sizeof(struct dt_parser *p)
{
	struct dt_loc loc = p->tok.loc;
	dt_advance(p, DT_LEX_NORMAL);
	if (p->tok.kind == T_LPAREN && dt_token_starts_type(p, dt_peek(p))) {
		struct dt_type type;
		dt_advance(p, DT_LEX_NORMAL);
		if (!dt_parse_type(p, &type) || !dt_parse_pointer_stars(p, &type) ||
		    !dt_expect(p, T_RPAREN, "')' after the type"))
			return NULL;
		if (type.kind == DT_TYPE_VOID || type.kind == DT_TYPE_STRING ||
		    (type.kind == DT_TYPE_SOU && !type.size)) {
			dt_refuse(p, loc, D_SIZEOF_TYPE, "cannot apply sizeof to an expression of "
				  "type %s", dt_type_str(p->ctx, type));
			return NULL;
		}
		return size_constant(p, loc, type.size);
	}
	struct dt_node *operand = parse_unary(p);
	return operand ? make(p, DT_N_SIZEOF, DT_OP_NONE, loc, operand, NULL) : NULL;
}

static struct dt_node *parse_offsetof(struct dt_parser *p)
{
	struct dt_loc loc = p->tok.loc;
	struct dt_type type;
	dt_advance(p, DT_LEX_NORMAL);
	if (!dt_expect(p, T_LPAREN, "'(' after offsetof"))
		return NULL;
	if (!dt_at_type(p)) {
		dt_syntax_error(p, "a type");
		return NULL;
	}
	if (!dt_parse_type(p, &type) || !dt_parse_pointer_stars(p, &type) ||
	    !dt_expect(p, T_COMMA, "',' after the type"))
		return NULL;
	if (p->tok.kind != T_IDENT) {
		dt_syntax_error(p, "a member name");
		return NULL;
	}
	struct dt_token member = p->tok;
	dt_advance(p, DT_LEX_NORMAL);
	if (!dt_expect(p, T_RPAREN, "')' after the member"))
		return NULL;
	if (type.kind != DT_TYPE_SOU || !type.size) {
		dt_refuse(p, loc, D_OFFSETOF_TYPE, "offsetof operand must be a struct or union "
			  "type");
		return NULL;
	}
	struct dt_ctf_member m;
	const char *name = dt_strndup(p->ctx, member.text, member.len);
	int r = dt_ctf_member(p->ctx, type, name, &m);
	if (r == -1) {
		dt_refuse(p, member.loc, D_TYPE_MEMBER, "%s is not a member of %s", name,
			  dt_type_str(p->ctx, type));
		return NULL;
	}
	if (r < 0 || m.bits) {
		dt_refuse(p, member.loc, D_OFFSETOF_BITFIELD, "cannot take offset of a bit-field: %s",
			  name);
		return NULL;
	}
	return size_constant(p, loc, m.offset);
}

static struct dt_node *parse_xlate(struct dt_parser *p)
{
	struct dt_loc loc = p->tok.loc;
	struct dt_type type;
	dt_advance(p, DT_LEX_NORMAL);
	if (!dt_expect(p, T_LT, "'<' after xlate"))
		return NULL;
	if (!dt_at_type(p)) {
		dt_syntax_error(p, "a type");
		return NULL;
	}
	if (!dt_parse_type(p, &type) || !dt_parse_pointer_stars(p, &type) ||
	    !dt_expect(p, T_GT, "'>' after the type") || !dt_expect(p, T_LPAREN, "'('"))
		return NULL;
	struct dt_node *operand = dt_parse_expr(p);
	if (!operand || !dt_expect(p, T_RPAREN, "')'"))
		return NULL;
	struct dt_node *n = make(p, DT_N_XLATE, DT_OP_NONE, loc, operand, NULL);
	if (n)
		n->type = type;
	return n;
}

struct dt_node *dt_parse_expr(struct dt_parser *p)
{
	struct dt_node *left = dt_parse_assign(p);

	while (left && p->tok.kind == T_COMMA) {
		struct dt_loc loc = p->tok.loc;
		dt_advance(p, DT_LEX_NORMAL);
		struct dt_node *right = dt_parse_assign(p);
		if (!right)
			return NULL;
		left = make(p, DT_N_COMMA, DT_OP_NONE, loc, left, right);
	}
	return left;
}
