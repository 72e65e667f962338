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
	struct dt_inline *inlines;	/* inline declarations, newest first (dt_inline.c) */
	struct dt_translator *translators;	/* translator declarations, newest first */
	struct dt_inline *externs;	/* extern declarations (no expr), newest first */
	int inline_depth;		/* inline expansions being checked, nested */
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
	T_INT,			/* value, type */
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
	struct dt_type type;		/* T_INT: the constant's type */
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
/*
 * Parse an integer literal (with optional u and l/ll suffixes); false if
 * it is not one. *overflow: it does not fit in 64 bits. *type: its type
 * (dt_int_literal_type); *typed false when no built-in type holds it.
 */
bool dt_parse_int_literal(const char *s, size_t len, uint64_t *value, struct dt_type *type,
			  bool *typed, bool *overflow);

/* ---- kernel symbols (dt_ksyms.c) ---- */

/* The address of kernel symbol name[0..len) in table (dt_compile_args.ksyms); false if none. */
bool dt_ksym_lookup(const char *table, const char *name, size_t len, uint64_t *addr);

/* ---- directives: #pragma D option and friends (dt_options.c) ---- */

void dt_pragma(struct dt_ctx *ctx, struct dt_loc loc, const char *text, size_t len);

/* ---- types (dt_types.c) ---- */

/*
 * The typedef names scripts may use (declarations, casts) and the
 * built-ins are typed with, as dtrace's LP64 D container defines them:
 * id, name, bytes, signed, long long (not long).
 */
#define DT_TYPEDEFS(X) \
	X(INT8, "int8_t", 1, true, false)      X(UINT8, "uint8_t", 1, false, false) \
	X(INT16, "int16_t", 2, true, false)    X(UINT16, "uint16_t", 2, false, false) \
	X(INT32, "int32_t", 4, true, false)    X(UINT32, "uint32_t", 4, false, false) \
	X(INT64, "int64_t", 8, true, false)    X(UINT64, "uint64_t", 8, false, false) \
	X(INTPTR, "intptr_t", 8, true, false)  X(UINTPTR, "uintptr_t", 8, false, false) \
	X(SIZE, "size_t", 8, false, false)     X(SSIZE, "ssize_t", 8, true, false) \
	X(PTRDIFF, "ptrdiff_t", 8, true, false) \
	X(PID, "pid_t", 4, true, false)        X(ID, "id_t", 4, true, false) \
	X(PROCESSORID, "processorid_t", 4, true, false) \
	X(HRTIME, "hrtime_t", 8, true, true)   X(UCHAR, "uchar_t", 1, false, false) \
	X(USHORT, "ushort_t", 2, false, false) X(UINT, "uint_t", 4, false, false) \
	X(ULONG, "ulong_t", 8, false, false)   X(U_LONGLONG, "u_longlong_t", 8, false, true) \
	X(LONGLONG, "longlong_t", 8, true, true) X(TID, "tid_t", 8, false, false)

enum dt_typedef_id {
	DT_TD_NONE,
#define DT_X(id, name, size, sg, ll) DT_TD_##id,
	DT_TYPEDEFS(DT_X)
#undef DT_X
	DT_TD_COUNT
};

/* An integer type of size bytes, named by typedef td (DT_TD_NONE: by its C name). */
#define DT_INT_T(sz, sg, td) { .kind = DT_TYPE_INT, .size = sz, .is_signed = sg, .tdef = td }

extern const struct dt_type dt_type_int64, dt_type_uint64, dt_type_int32, dt_type_string,
	dt_type_void, dt_type_thread;

/*
 * A type's name for messages, as dtrace names it (arena): the typedef it
 * was named by, else its C name ("int", "unsigned long", "char *"),
 * "string", "void".
 */
const char *dt_type_str(struct dt_ctx *ctx, struct dt_type t);
/* A typedef name (uint64_t, size_t, ...) or NULL. */
const struct dt_type *dt_typedef_lookup(const char *name, size_t len);
/* The type of an integer keyword combination: 1, 2, 4 or 8 bytes; long long or not. */
struct dt_type dt_type_c_int(unsigned size, bool is_signed, bool is_llong);
/*
 * The type of an integer constant as dtrace gives it: the first of int,
 * unsigned int, long, unsigned long, long long, unsigned long long that
 * holds value, starting at the one its u/l suffixes name and skipping the
 * unsigned ones for a decimal constant (or one whose suffix starts with
 * a lower-case u). False when none holds it (a decimal above LONG_MAX).
 */
bool dt_int_literal_type(uint64_t value, bool decimal, const char *suffix, struct dt_type *t);
/* Equal as C types (their typedef names aside). */
bool dt_type_equal(struct dt_type a, struct dt_type b);
bool dt_type_is_int(struct dt_type t);
bool dt_type_is_scalar(struct dt_type t);	/* integers, curthread and pointers */
/* A pointer to pointee (an integer, void or a pointer: the caller caps the levels). */
struct dt_type dt_type_pointer_to(struct dt_type pointee);
/* Bytes one step of a DT_TYPE_PTR covers (C's sizeof *p): 0 for void *. */
unsigned dt_type_pointee_size(struct dt_type ptr);
/* What a DT_TYPE_PTR points to: an integer, void, or a pointer one level less. */
struct dt_type dt_type_pointee(struct dt_type ptr);
/*
 * The integer type a binary operator on a and b computes in, as dtrace
 * chooses it: the wider, then the unsigned, then long long over long;
 * a itself when they are the same type (its typedef name kept).
 */
struct dt_type dt_type_promote(struct dt_type a, struct dt_type b);
/* Integers, strings, thread pointers and other pointers each form one compatible class. */
bool dt_type_same_class(struct dt_type a, struct dt_type b);
/* Truncate and extend v to t's width and signedness. */
uint64_t dt_type_normalize(struct dt_type t, uint64_t v);

/* ---- C types: the kernel's and the program's (dt_ctf.c, dt_ctf_decl.c) ---- */

#define DT_MAX_MEMBERS 512	/* of one struct, union or enum declaration */

/* Open the kernel's types (ctx->args->types) and the program's dictionary; false: reported. */
bool dt_ctf_open(struct dt_ctx *ctx);
void dt_ctf_free(struct dt_ctf *c);
bool dt_ctf_has_kernel(const struct dt_ctx *ctx);
/* The id of the kernel's types the program was compiled against (kernel_ctf_id); 0: none. */
uint64_t dt_ctf_id(const struct dt_ctf *c);
struct ctf_dict *dt_ctf_dict(const struct dt_ctf *c);
/* The dictionary that owns type id (the kernel's, or the program's): ask it about id. */
struct ctf_dict *dt_ctf_owner(const struct dt_ctf *c, uint32_t id);
/* C type id's name ("struct thread", "char [24]") in buf. */
const char *dt_ctf_name(const struct dt_ctf *c, uint32_t id, char *buf, size_t size);
/* The compiler's view of C type id: integers, pointers, structs, arrays; void if none. */
struct dt_type dt_ctf_type(struct dt_ctx *ctx, uint32_t id);
/* A type by its C name ("struct thread", "enum state", a typedef); false if none. */
bool dt_ctf_lookup(struct dt_ctx *ctx, const char *cname, struct dt_type *t);
/* Is name[0..len) a typedef (the program's or the kernel's)? Its type in *t (t may be NULL). */
bool dt_ctf_typedef(struct dt_ctx *ctx, const char *name, size_t len, struct dt_type *t);

struct dt_ctf_member {
	struct dt_type type;
	uint64_t offset;		/* bytes from the struct's start (a bit-field: its unit's) */
	uint8_t bits, shift;		/* a bit-field: its width, and its shift in the unit */
};

/* Member name of struct or union sou: 0; -1 no such member; -2 a bit-field outside its unit. */
int dt_ctf_member(struct dt_ctx *ctx, struct dt_type sou, const char *name,
		  struct dt_ctf_member *m);
/* An array type's element type and count. */
struct dt_type dt_ctf_element(struct dt_ctx *ctx, struct dt_type array, uint32_t *count);
bool dt_ctf_is_char_array(struct dt_ctx *ctx, struct dt_type t);
/* Is the kernel whose types these are big-endian (dtc -B)? */
bool dt_ctf_big_endian(const struct dt_ctf *c);

/* ---- the JSON document's writer (dt_json.c), for dt_print_type.c ---- */
struct json;
void dt_json_puts(struct json *j, const char *s);
void dt_json_printf(struct json *j, const char *fmt, ...) DT_PRINTF_LIKE(2, 3);
void dt_json_string(struct json *j, const char *s, size_t n);
void dt_json_fail(struct json *j);	/* out of memory: the document fails */
/* print()'s description of type t (dt_print_type.c has its layout). */
void dt_print_type_json(struct json *j, const struct dt_program *program, struct dt_type t);
/* A kernel function's return and argument types: the number of arguments, or -1 if unknown. */
int dt_ctf_function(struct dt_ctx *ctx, const char *name, struct dt_type *ret,
		    struct dt_type *args, int max);
/* A kernel variable's declared type; false if unknown. */
bool dt_ctf_object(struct dt_ctx *ctx, const char *name, struct dt_type *t);
/* An enumerator (the program's or the kernel's): its value and enum type. */
bool dt_ctf_enumerator(struct dt_ctx *ctx, const char *name, int64_t *value, struct dt_type *t);

/* A member as a declaration gives it (bits -1: not a bit-field; name NULL: unnamed). */
struct dt_member_decl {
	const char *name;
	struct dt_type type;
	int bits;
	struct dt_loc loc;
};

/* The CTF id of a type the compiler holds (creating integers and pointers); -1 if none. */
long dt_ctf_id_of(struct dt_ctx *ctx, struct dt_type t);
/* struct or union NAME: the defined one, or a new forward declaration. */
bool dt_ctf_sou_ref(struct dt_ctx *ctx, bool is_union, const char *name, struct dt_type *t);
/* Declarations; each returns false after reporting the error. */
bool dt_ctf_sou_define(struct dt_ctx *ctx, bool is_union, const char *name,
		       struct dt_member_decl *members, int n, struct dt_loc loc,
		       struct dt_type *out);
/* A string member of a D struct is a char array of dtrace's default strsize. */
#define DT_STRING_MEMBER_SIZE 256
bool dt_ctf_enum_define(struct dt_ctx *ctx, const char *name, const char *const *names,
			const int64_t *values, const struct dt_loc *locs, int n, struct dt_loc loc,
			struct dt_type *out);
bool dt_ctf_typedef_define(struct dt_ctx *ctx, const char *name, struct dt_type t,
			   struct dt_loc loc);
bool dt_ctf_array_of(struct dt_ctx *ctx, struct dt_type elem, uint32_t count, struct dt_loc loc,
		     struct dt_type *out);

/* ---- inline and translator (dt_inline.c) ---- */

struct dt_inline {
	const char *name;
	struct dt_type type;
	struct dt_node *expr;		/* as parsed: each use checks a copy */
	struct dt_loc loc;
	bool expanding;			/* a use is being checked: using it again recurses */
	struct dt_inline *next;
};

struct dt_xlator_member {
	const char *name;
	struct dt_node *expr;		/* as parsed, in terms of the translator's input */
	struct dt_loc loc;
};

struct dt_translator {
	struct dt_type out, in;		/* out: a struct or union */
	const char *param;		/* the input's name in the members' expressions */
	struct dt_xlator_member *members;
	int n;
	struct dt_loc loc;
	struct dt_translator *next;
};

struct dt_parser;
struct dt_checker;
/* At 'inline' or 'translator' at the top level: parse and keep the declaration. */
void dt_parse_inline(struct dt_parser *p);
void dt_parse_translator(struct dt_parser *p);
void dt_parse_extern(struct dt_parser *p);
/* The type an extern declaration gives kernel variable name; false if none. */
bool dt_extern_type(struct dt_ctx *ctx, const char *name, struct dt_type *t);
struct dt_inline *dt_inline_lookup(struct dt_ctx *ctx, const char *name);
/* n (a use of in) becomes its expression, converted to its type, and is checked. */
bool dt_inline_expand(struct dt_checker *ck, struct dt_node *n, struct dt_inline *in);
/* n: xlate<OUT>(x).m (arrow false) or xlate<OUT *>(x)->m: the translated member, checked. */
bool dt_xlate_member(struct dt_checker *ck, struct dt_node *n, bool arrow);

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
/* n becomes what with is, staying in the list it is in (its next kept). */
void dt_node_replace(struct dt_node *n, const struct dt_node *with);
/* Set n->depth from its children; false (reported) when too deep. */
bool dt_node_fix_depth(struct dt_parser *p, struct dt_node *n);
bool dt_token_starts_type(struct dt_parser *p, const struct dt_token *t);
/* A declaration's error was reported (dt_ctf_*): fail the parse as dt_refuse does. */
void dt_parse_reported(struct dt_parser *p);
bool dt_at_type(struct dt_parser *p);
bool dt_parse_type(struct dt_parser *p, struct dt_type *type);
/* The '[N]'s after a declarator's name: type becomes an array per '[N]' (dt_parse_type.c). */
bool dt_parse_array_dims(struct dt_parser *p, struct dt_type *type);
/* typedef TYPE NAME[, NAME...]; at the 'typedef'. */
void dt_parse_typedef(struct dt_parser *p);
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

/* Check n as a value: an array becomes its address, a struct is refused (dt_decay). */
bool dt_check_expr(struct dt_checker *ck, struct dt_node *n);
/* Check n as an object: a struct or array stays one (for ., &, sizeof, []). */
bool dt_check_object(struct dt_checker *ck, struct dt_node *n);

/* C types (dt_check_ctype.c): p->m on a struct pointer, s.m, *p of a struct, &x, sizeof x. */
bool dt_check_arrow(struct dt_checker *ck, struct dt_node *n);
bool dt_check_dot(struct dt_checker *ck, struct dt_node *n);
bool dt_check_deref_sou(struct dt_checker *ck, struct dt_node *n);
bool dt_check_addrof(struct dt_checker *ck, struct dt_node *n);
/* Whether n is an object in memory (a member, element or *p), and one op may write. */
bool dt_is_memory_object(const struct dt_node *n);
bool dt_check_store_target(struct dt_checker *ck, struct dt_node *n, const char *op);
/* Whether v (a struct or fixed-size array) is held by reference: its loads give its address. */
bool dt_var_by_reference(const struct dt_var *v);
/* n's element count if it is an array in a D variable's storage (checked indexes), else 0. */
uint32_t dt_variable_array_count(struct dt_checker *ck, const struct dt_node *n);
bool dt_check_sizeof(struct dt_checker *ck, struct dt_node *n);
/* A checked object used as a value: an array becomes its address; false for a struct. */
bool dt_decay(struct dt_checker *ck, struct dt_node *n);
/* Check n; an array becomes a pointer to its first element (a char array too). */
bool dt_decay_to_pointer(struct dt_checker *ck, struct dt_node *n);
/* args[N] of an fbt clause: argN cast to the parameter's type. */
bool dt_check_args(struct dt_checker *ck, struct dt_node *n);
/* base[index] on a non-array (a pointer, or an error): rewritten as *(base + index). */
bool dt_check_pointer_index(struct dt_checker *ck, struct dt_node *n, bool lvalue);
/* The type a checked binary node's operands are converted to before it computes. */
struct dt_type dt_operand_type(const struct dt_node *n);
/* A subroutine call inside an expression. */
/* A call's arguments against f's arity and argument kinds (dt_check_call.c). */
bool dt_check_func_args(struct dt_checker *ck, const struct dt_func *f, struct dt_node *args,
			int nargs, struct dt_loc loc);
bool dt_check_call_expr(struct dt_checker *ck, struct dt_node *n);
/* The same for a call that is a statement of its own (bcopy(...);): void ones allowed. */
bool dt_check_call_statement(struct dt_checker *ck, struct dt_node *n);
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
/* chill, raise, panic, breakpoint, stop: allowed only with the destructive option (-w). */
bool dt_func_destructive(enum dt_func_id id);

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
/* What a format's conversions print, for dt_format_check. */
struct dt_format_values {
	const char *fname;		/* "printf" or "printa", for messages */
	struct dt_loc loc;		/* where errors without a value of their own point */
	int n;				/* values the conversions take in turn (and * widths) */
	const struct dt_type *types;	/* printf's arguments after the format; printa's keys */
	const struct dt_loc *locs;	/* where each value is, or NULL */
	int arg_offset;			/* dt_conv.arg of value 0: 1 for printf, 0 for printa */
	bool exact;			/* every value must be printed (printf) */
	struct dt_type aggtype;		/* printa: what %@ prints */
	int naggs;			/* printa: its aggregations */
};

/*
 * Match f's conversions with values as dtrace does, setting each
 * conversion's arg; false after reporting the first mismatch.
 */
bool dt_format_check(struct dt_ctx *ctx, struct dt_format *f, const struct dt_format_values *v);

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
