/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * dt_impl.h - what the pieces of the D front end share: the compilation
 * context (arena, errors, macro arguments), tokens and the lexer, the
 * parser's entry point, the checker, and the small tables several files
 * read (type names, keywords).
 *
 * Invariants: all memory of one compilation comes from its arena
 * (dt_alloc never returns NULL: running out longjmps to dt_compile, which
 * reports D_NOMEM); dt_error never reports more than DT_MAX_ERRORS and
 * sets ctx->stopped once the limit is reached, after which every phase
 * winds down without looking at more input.
 */
#ifndef SCION_DT_IMPL_H
#define SCION_DT_IMPL_H

#include <setjmp.h>
#include <stdarg.h>
#include "dtrace.h"

#define DT_PRINTF_LIKE(f, a) __attribute__((format(printf, f, a)))

/* ---- the compilation context (dt_compile.c) ---- */

struct dt_ctx {
	struct dt_program *prog;
	jmp_buf nomem;
	const struct dt_compile_args *args;
	const char *source;
	size_t source_len;
	const char *filename;		/* arena copy */
	int argc;			/* macro arguments $1..$argc */
	const char *const *argv;
	bool *arg_used;			/* [argc + 1], $0 included */
	bool probespec;			/* DT_COMPILE_PROBESPEC */
	const char *cpp_input;		/* the temporary file cpp read, named filename in errors */
	bool stopped;			/* error limit reached */
	int nsyntax;			/* lexical and syntax errors */
	struct dt_loc end;		/* end of input */
	struct dt_decl *decls;		/* top-level declarations, in order */
};

void *dt_alloc(struct dt_ctx *ctx, size_t size);	/* zeroed */
char *dt_strndup(struct dt_ctx *ctx, const char *s, size_t len);
void dt_error(struct dt_ctx *ctx, struct dt_loc loc, enum dt_errtag tag, const char *fmt, ...)
	DT_PRINTF_LIKE(4, 5);
bool dt_defaultargs(const struct dt_ctx *ctx);

/* ---- tokens and the lexer (dt_lex.c) ---- */

#define DT_KEYWORDS(X) \
	X(AUTO, "auto") X(BREAK, "break") X(CASE, "case") X(CHAR, "char") \
	X(CONST, "const") X(CONTINUE, "continue") X(COUNTER, "counter") \
	X(DEFAULT, "default") X(DO, "do") X(DOUBLE, "double") X(ELSE, "else") \
	X(ENUM, "enum") X(EXTERN, "extern") X(FLOAT, "float") X(FOR, "for") \
	X(GOTO, "goto") X(IF, "if") X(IMPORT, "import") X(INLINE, "inline") \
	X(INT, "int") X(LONG, "long") X(OFFSETOF, "offsetof") X(PROBE, "probe") \
	X(PROVIDER, "provider") X(REGISTER, "register") X(RESTRICT, "restrict") \
	X(RETURN, "return") X(SELF, "self") X(SHORT, "short") X(SIGNED, "signed") \
	X(SIZEOF, "sizeof") X(STATIC, "static") X(STRING, "string") \
	X(STRINGOF, "stringof") X(STRUCT, "struct") X(SWITCH, "switch") X(THIS, "this") \
	X(TRANSLATOR, "translator") X(TYPEDEF, "typedef") X(UNION, "union") \
	X(UNSIGNED, "unsigned") X(USERLAND, "userland") X(VOID, "void") \
	X(VOLATILE, "volatile") X(WHILE, "while") X(XLATE, "xlate")

#define DT_PUNCTUATORS(X) \
	X(SHL_ASSIGN, "<<=") X(SHR_ASSIGN, ">>=") \
	X(ARROW, "->") X(INC, "++") X(DEC, "--") X(SHL, "<<") X(SHR, ">>") \
	X(LE, "<=") X(GE, ">=") X(EQ, "==") X(NE, "!=") X(LAND, "&&") X(LOR, "||") \
	X(LXOR, "^^") X(ADD_ASSIGN, "+=") X(SUB_ASSIGN, "-=") X(MUL_ASSIGN, "*=") \
	X(DIV_ASSIGN, "/=") X(MOD_ASSIGN, "%=") X(AND_ASSIGN, "&=") X(OR_ASSIGN, "|=") \
	X(XOR_ASSIGN, "^=") \
	X(PLUS, "+") X(MINUS, "-") X(STAR, "*") X(SLASH, "/") X(PERCENT, "%") \
	X(AMP, "&") X(PIPE, "|") X(CARET, "^") X(TILDE, "~") X(BANG, "!") X(LT, "<") \
	X(GT, ">") X(ASSIGN, "=") X(QUESTION, "?") X(COLON, ":") X(COMMA, ",") \
	X(SEMI, ";") X(LPAREN, "(") X(RPAREN, ")") X(LBRACKET, "[") X(RBRACKET, "]") \
	X(LBRACE, "{") X(RBRACE, "}") X(DOT, ".") X(BACKQUOTE, "`")

enum dt_tok {
	T_EOF,
	T_ERROR,		/* the lexer reported an error here already */
	T_IDENT,		/* text, len */
	T_INT,			/* value, is_unsigned */
	T_STRING,		/* text, len: decoded bytes */
	T_AGG,			/* text, len: the name after @ ("" for a bare @) */
	T_PDESC,		/* text, len: a probe description, macros expanded */
#define DT_X(id, s) T_KW_##id,
	DT_KEYWORDS(DT_X)
#undef DT_X
#define DT_X(id, s) T_##id,
	DT_PUNCTUATORS(DT_X)
#undef DT_X
	T_COUNT
};

struct dt_token {
	enum dt_tok kind;
	struct dt_loc loc;
	const char *text;
	size_t len;
	uint64_t value;
	bool is_unsigned;
	size_t src_offset, src_len;	/* as written, for "near" in messages */
};

struct dt_lexer {
	struct dt_ctx *ctx;
	const char *src;
	size_t len;
	size_t pos;
	size_t line_start;		/* offset of the current line's first byte */
	int line;
	const char *file;
	bool line_has_token;		/* a directive must start its line */
};

/* How the next token is read: probe descriptions exist only at clause starts. */
enum dt_lex_mode {
	DT_LEX_NORMAL,
	DT_LEX_CLAUSE_START,		/* a declaration keyword, or a probe description */
	DT_LEX_PDESC,			/* a probe description (after a ',' in a list) */
};

void dt_lex_init(struct dt_lexer *lx, struct dt_ctx *ctx, const char *src, size_t len);
void dt_lex_next(struct dt_lexer *lx, enum dt_lex_mode mode, struct dt_token *tok);
/* The token as written, quoted (at most 32 bytes), or "end of input": for messages. */
const char *dt_tok_spelling(struct dt_lexer *lx, const struct dt_token *tok);
/* Parse an integer literal (with optional suffixes); false if it is not one. */
bool dt_parse_int_literal(const char *s, size_t len, uint64_t *value, bool *is_unsigned,
			  bool *overflow);

/* ---- kernel symbols (dt_ksyms.c) ---- */

/* The address of kernel symbol name[0..len) in table (dt_compile_args.ksyms); false if none. */
bool dt_ksym_lookup(const char *table, const char *name, size_t len, uint64_t *addr);

/* ---- directives: #pragma D option and friends (dt_options.c) ---- */

void dt_pragma(struct dt_ctx *ctx, struct dt_loc loc, const char *text, size_t len);

/* ---- types (dt_types.c) ---- */

extern const struct dt_type dt_type_int64, dt_type_uint64, dt_type_int32, dt_type_string,
	dt_type_void, dt_type_thread;

/* dt_type_name in the arena, for messages. */
const char *dt_type_str(struct dt_ctx *ctx, struct dt_type t);
/* A typedef name (uint64_t, size_t, ...) or NULL. */
const struct dt_type *dt_typedef_lookup(const char *name, size_t len);
bool dt_type_is_int(struct dt_type t);
bool dt_type_is_scalar(struct dt_type t);	/* integers, curthread and pointers */
/* A pointer to pointee (an integer, void or a pointer: the caller caps the levels). */
struct dt_type dt_type_pointer_to(struct dt_type pointee);
/* Bytes one step of a DT_TYPE_PTR covers (C's sizeof *p): 0 for void *. */
unsigned dt_type_pointee_size(struct dt_type ptr);
/* What a DT_TYPE_PTR points to: an integer, void, or a pointer one level less. */
struct dt_type dt_type_pointee(struct dt_type ptr);
/* The 64-bit type arithmetic on a and b is done in. */
struct dt_type dt_type_promote(struct dt_type a, struct dt_type b);
/* Integers, strings, thread pointers and other pointers each form one compatible class. */
bool dt_type_same_class(struct dt_type a, struct dt_type b);
/* Truncate and extend v to t's width and signedness. */
uint64_t dt_type_normalize(struct dt_type t, uint64_t v);

/* ---- the parser (dt_parse.c, dt_parse_expr.c) ---- */

/* A top-level declaration, kept in order with the clauses around it. */
struct dt_decl {
	struct dt_loc loc;
	enum dt_scope scope;
	const char *name;
	struct dt_type type;
	bool is_array;
	int nkeys;
	struct dt_type keys[DT_MAX_KEYS];
	int before_clause;		/* number of clauses that precede it */
	struct dt_decl *next;
};

struct dt_parser {
	struct dt_ctx *ctx;
	struct dt_lexer lex;
	struct dt_token tok;		/* the current token */
	struct dt_token ahead;		/* the one after it, when has_ahead */
	bool has_ahead;
	bool failed;			/* syntax error: unwind to the statement */
	bool in_predicate;		/* '/' before '{' ends the expression */
	int depth;			/* recursion of the expression parser */
	int braces;			/* open braces of the current clause */
	struct dt_decl **decls_tail;
	struct dt_clause **clauses_tail;
};

void dt_advance(struct dt_parser *p, enum dt_lex_mode mode);
const struct dt_token *dt_peek(struct dt_parser *p);
bool dt_expect(struct dt_parser *p, enum dt_tok kind, const char *what);
void dt_syntax_error(struct dt_parser *p, const char *expected);
/* Report a refused construct at loc (D_UNSUPPORTED unless tag says otherwise). */
void dt_refuse(struct dt_parser *p, struct dt_loc loc, enum dt_errtag tag, const char *fmt, ...)
	DT_PRINTF_LIKE(4, 5);
struct dt_node *dt_node_new(struct dt_ctx *ctx, enum dt_node_kind kind, struct dt_loc loc);
/* Set n->depth from its children; false (reported) when too deep. */
bool dt_node_fix_depth(struct dt_parser *p, struct dt_node *n);
bool dt_token_starts_type(const struct dt_token *t);
bool dt_at_type(struct dt_parser *p);
bool dt_parse_type(struct dt_parser *p, struct dt_type *type);
/* The '*'s after a type (none is fine): type becomes a pointer per '*'. */
bool dt_parse_pointer_stars(struct dt_parser *p, struct dt_type *type);
struct dt_node *dt_parse_expr(struct dt_parser *p);	/* with the comma operator */
struct dt_node *dt_parse_assign(struct dt_parser *p);	/* one argument */
/* Arguments up to the closing token (consumed); NULL with *n = 0 if none. */
struct dt_node *dt_parse_args(struct dt_parser *p, enum dt_tok closer, int *n);

/* Parse the whole input into ctx->prog's clauses and ctx->decls. */
void dt_parse_program(struct dt_ctx *ctx, const char *src, size_t len);

/* ---- the checker (dt_check.c, dt_vars.c, dt_check_call.c, dt_funcs.c) ---- */

void dt_check_program(struct dt_ctx *ctx);

/* A check to run once every clause is seen: aggregations used before defined. */
struct dt_deferred {
	struct dt_stmt *stmt;		/* printa, clear, trunc, normalize, denormalize */
	struct dt_deferred *next;
};

/*
 * Names to symbols (variables per scope, aggregations), so that programs
 * with thousands of names check in linear time: open addressing, grown
 * (in the arena) at half full.
 */
struct dt_symtab {
	struct dt_symslot {
		const char *name;
		int ns;			/* namespace: enum dt_scope, or DT_NS_AGG */
		void *sym;
	} *slots;
	size_t cap, count;
};

#define DT_NS_AGG DT_SCOPE_COUNT

void *dt_sym_find(const struct dt_symtab *t, int ns, const char *name);
void dt_sym_add(struct dt_ctx *ctx, struct dt_symtab *t, int ns, const char *name, void *sym);

struct dt_checker {
	struct dt_ctx *ctx;
	struct dt_symtab syms;
	struct dt_program *prog;
	struct dt_var **vars_tail;
	struct dt_agg **aggs_tail;
	struct dt_clause *clause;	/* being checked */
	/* What the clause did so far, for the speculation rules. */
	bool seen_speculate, seen_commit, seen_data, seen_agg;
	struct dt_deferred *deferred;
};

bool dt_check_expr(struct dt_checker *ck, struct dt_node *n);
/* A subroutine call inside an expression. */
bool dt_check_call_expr(struct dt_checker *ck, struct dt_node *n);
/* A statement that is a call of an action (s->expr is the call). */
void dt_check_action(struct dt_checker *ck, struct dt_stmt *s);
void dt_check_aggregation(struct dt_checker *ck, struct dt_stmt *s);
/* The speculation rules for an action statement (s->func), in statement order. */
void dt_speculation_rules(struct dt_checker *ck, struct dt_stmt *s);
void dt_check_deferred(struct dt_checker *ck);
/* The aggregation named name, created (undefined) if new. */
struct dt_agg *dt_agg_ref(struct dt_checker *ck, const char *name, struct dt_loc loc);
const struct dt_func *dt_func_lookup(const char *name);	/* dt_funcs.c */
/* Why a known D function is refused, or NULL. */
const char *dt_func_refusal(const char *name);

/* Names (dt_vars.c). value: the type stored by an assignment, NULL for a read. */
const struct dt_builtin *dt_builtin_lookup(const char *name);
bool dt_resolve_read(struct dt_checker *ck, struct dt_node *n);
bool dt_resolve_array(struct dt_checker *ck, struct dt_node *n, const struct dt_type *value);
bool dt_resolve_lvalue(struct dt_checker *ck, struct dt_node *n, struct dt_type value);
/* Is n D's NULL (a pointer constant 0)? Strings take it and compare with it. */
bool dt_is_null(const struct dt_node *n);
/* An operand of ++, -- or op=: an existing writable integer variable. */
bool dt_check_modifiable(struct dt_checker *ck, struct dt_node *n, const char *op);
void dt_apply_declaration(struct dt_checker *ck, const struct dt_decl *d);

/* ---- formats (dt_printf.c) ---- */

/*
 * Parse a printf/printa format. Returns NULL after reporting an error.
 * allow_agg: %@ is accepted (printa).
 */
struct dt_format *dt_format_parse(struct dt_ctx *ctx, struct dt_loc loc, const char *fname,
				  const char *text, size_t len, bool allow_agg);
/* Whether a conversion accepts a value of type t; want names what it needs. */
bool dt_conv_accepts(const struct dt_conv *cv, struct dt_type t, const char **want);

/* ---- the C preprocessor (dt_pp.c) ---- */

/*
 * Run cpp over source; returns its output (arena) and sets *outlen, or
 * NULL after reporting the failure as D_PREPROC errors.
 */
char *dt_preprocess(struct dt_ctx *ctx, const char *cpp, const char *source, size_t length,
		    size_t *outlen);

/* ---- small helpers ---- */

/* Bytes quoted for a message: "..." with C escapes, at most max of them (dt_compile.c). */
char *dt_quote(struct dt_ctx *ctx, const char *s, size_t len, size_t max);

#endif
