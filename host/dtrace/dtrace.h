/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * dtrace.h - the front end of Scion's D-subset compiler (host library).
 *
 * dt_compile() turns D source text into a checked program: probe clauses
 * whose expressions carry their resolved type, identifiers resolved to
 * built-in variables, declared or implicit variables, aggregations and
 * functions from fixed tables, plus the options set by `#pragma D option`
 * and the errors found. A code generator walks dt_program.clauses; the
 * tables it needs (built-ins, functions, curthread members, options) are
 * exported with stable ids.
 *
 * Pointers: casts of integers to pointer types (`(uint64_t *)arg0`),
 * pointer variables, unary * and p[i] (*(p + i)) loading a 1-, 2-, 4- or
 * 8-byte integer (or a pointer) through the kernel's fault-tolerant read,
 * pointer ± integer scaled by the pointee's size and pointer - pointer,
 * as in C. Integer types, printf and printa formats follow dtrace's
 * compiler: see struct dt_type and dt_printf.c.
 *
 * Refused with a message (mostly D_UNSUPPORTED): address-of (&), structs
 * and unions (curthread->member and curpsinfo->member aside),
 * sizeof/offsetof/xlate (stringof(x) is x read as a string: parentheses
 * required),
 * inline/translator/provider/typedef/extern/static declarations,
 * initializers, fixed-size and clause-local (this->) arrays, if/else and
 * loops, floating point, args[] (use arg0..arg9), macro variables other
 * than $target (-p PID), user-space functions but copyin and copyinstr,
 * destructive functions (ustack,
 * raise, system...), and the string subroutines the trace bytecode lacks
 * (toupper, strtoll, ...: see dt_funcs.c). Kernel symbols (`name,
 * kernel`name, &`name) are their addresses, from the symbol list the
 * compile arguments give (no types: read one as *(int *)&`name).
 *
 * dt_generate() then turns a checked program into DIF programs and the
 * trace object the kernel loads (scion/dof.h), with what the consumer
 * needs to read the records and aggregations it sends back.
 *
 * Invariants:
 * - A program with nerrors == 0 is fully checked: every dt_node has its
 *   final kind (never DT_N_IDENT, DT_N_INDEX or DT_N_AGGNAME), a type, its ref
 *   filled for its kind; constant integer subexpressions are folded into
 *   DT_N_INT nodes.
 * - A program with errors has no usable AST (clauses may be partial);
 *   only errors[] is meaningful.
 * - Everything a program points to lives until dt_program_free().
 * - Never crashes on any input, never reads past `length` bytes of the
 *   source, and stops after DT_MAX_ERRORS errors.
 */
#ifndef SCION_DTRACE_H
#define SCION_DTRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <scion/dif.h>
#include <scion/dof.h>
#include "dt_options.h"

#define DT_MAX_ERRORS	20	/* then one "too many errors" entry */
#define DT_MAX_KEYS	8	/* tuple keys of an array or aggregation */
#define DT_MAX_ARGS	32	/* arguments of one function call */
#define DT_MAX_DEPTH	256	/* expression nesting */

/*
 * Error tags: dtrace's names (DT_ERRTAGS_ILLUMOS: the same conditions as
 * the tags of the illumos D compiler) and Scion's own (conditions it has
 * no tag for). One list: the enum and dt_errtag_name's names come from it.
 */
#define DT_ERRTAGS_ILLUMOS(X) \
	X(D_UNKNOWN) X(D_SYNTAX) X(D_EMPTY) X(D_TYPE_MEMBER) X(D_ID_OFLOW) X(D_PDESC_INVAL) \
	X(D_PRED_SCALAR) X(D_FUNC_IDENT) X(D_FUNC_UNDEF) X(D_FUNC_IDKIND) X(D_OP_INT) \
	X(D_OP_SCALAR) X(D_OP_ARITH) X(D_OP_WRITE) X(D_OP_LVAL) X(D_OP_INCOMPAT) X(D_OP_ACT) \
	X(D_AGG_REDEF) X(D_AGG_FUNC) X(D_AGG_MDIM) X(D_ARR_BADREF) X(D_DIV_ZERO) X(D_DEREF_NONPTR) \
	X(D_DEREF_VOID) X(D_CAST_INVAL) X(D_PRAGERR) X(D_PRAGCTL_INVAL) X(D_PRAGMA_INVAL) \
	X(D_PRAGMA_MALFORM) X(D_PRAGMA_OPTSET) X(D_MACRO_UNDEF) X(D_MACRO_UNUSED) X(D_INT_OFLOW) \
	X(D_INT_DIGIT) X(D_STR_NL) X(D_CHR_NL) X(D_CHR_NULL) X(D_CHR_OFLOW) X(D_IDENT_BADREF) \
	X(D_IDENT_UNDEF) X(D_VAR_UNSUP) X(D_PROTO_LEN) X(D_PROTO_ARG) X(D_ARGS_NONE) X(D_KEY_TYPE) \
	X(D_PRINTF_DYN_PROTO) X(D_PRINTF_DYN_TYPE) X(D_PRINTF_AGG_CONV) X(D_PRINTF_ARG_PROTO) \
	X(D_PRINTF_ARG_TYPE) X(D_PRINTF_ARG_EXTRA) X(D_PRINTF_ARG_FMT) X(D_PRINTF_FMT_EMPTY) \
	X(D_DECL_COMBO) X(D_DECL_ARRSUB) X(D_DECL_IDRED) X(D_DECL_LOCASSC) X(D_DECL_VOIDOBJ) \
	X(D_DECL_BADCLASS) X(D_COMM_COMM) X(D_COMM_DREC) X(D_SPEC_SPEC) X(D_SPEC_COMM) \
	X(D_SPEC_DREC) X(D_AGG_COMM) X(D_AGG_SPEC) X(D_AGG_NULL) X(D_AGG_SCALAR) X(D_EXIT_SPEC) \
	X(D_DREC_COMM) X(D_PRINTA_PROTO) X(D_PRINTA_AGGARG) X(D_PRINTA_AGGBAD) X(D_TRACE_VOID) X(D_TRACEMEM_ADDR) X(D_TRACEMEM_SIZE) \
	X(D_TRACEMEM_DYNSIZE) \
	X(D_STACK_PROTO) X(D_STACK_SIZE) X(D_LQUANT_BASETYPE) X(D_LQUANT_BASEVAL) \
	X(D_LQUANT_LIMTYPE) X(D_LQUANT_LIMVAL) X(D_LQUANT_MISMATCH) X(D_LQUANT_STEPTYPE) \
	X(D_LQUANT_STEPVAL) X(D_LQUANT_STEPLARGE) X(D_LQUANT_STEPSMALL) X(D_CLEAR_PROTO) \
	X(D_CLEAR_AGGARG) X(D_CLEAR_AGGBAD) X(D_NORMALIZE_PROTO) X(D_NORMALIZE_SCALAR) \
	X(D_NORMALIZE_AGGARG) X(D_NORMALIZE_AGGBAD) X(D_TRUNC_PROTO) X(D_TRUNC_SCALAR) \
	X(D_TRUNC_AGGARG) X(D_TRUNC_AGGBAD) X(D_CG_EXPR) X(D_ACT_SPEC) X(D_DECL_TYPERED) \
	X(D_DECL_BFCONST) X(D_DECL_BFSIZE) X(D_DECL_BFTYPE) X(D_DECL_ENCONST) X(D_DECL_ENOFLOW) \
	X(D_DECL_INCOMPLETE) X(D_DECL_ARRBIG) X(D_DECL_MNAME) X(D_OP_SOU) X(D_OP_PTR) \
	X(D_OP_INCOMPLETE) X(D_ADDROF_LVAL) X(D_ADDROF_VAR) X(D_ADDROF_BITFIELD) X(D_SIZEOF_TYPE) \
	X(D_SIZEOF_BITFIELD) X(D_OFFSETOF_TYPE) X(D_OFFSETOF_BITFIELD) X(D_ARGS_IDX) \
	X(D_ARGS_TYPE) X(D_ARGS_MULTI) X(D_XLATE_REDECL) X(D_XLATE_NOCONV) \
	X(D_XLATE_NONE) X(D_XLATE_SOU) X(D_XLATE_INCOMPAT) X(D_XLATE_MEMB) X(D_LLQUANT_FACTORTYPE) \
	X(D_LLQUANT_FACTORVAL) X(D_LLQUANT_FACTORMATCH) X(D_LLQUANT_LOWTYPE) X(D_LLQUANT_LOWVAL) \
	X(D_LLQUANT_LOWMATCH) X(D_LLQUANT_HIGHTYPE) X(D_LLQUANT_HIGHVAL) X(D_LLQUANT_HIGHMATCH) \
	X(D_LLQUANT_NSTEPTYPE) X(D_LLQUANT_NSTEPVAL) X(D_LLQUANT_NSTEPMATCH) X(D_LLQUANT_MAGRANGE) \
	X(D_LLQUANT_FACTORNSTEPS) X(D_LLQUANT_FACTOREVEN) X(D_LLQUANT_FACTORSMALL) \
	X(D_LLQUANT_MAGTOOBIG)

#define DT_ERRTAGS_SCION(X) \
	X(D_UNSUPPORTED)	/* a D feature this subset refuses */ \
	X(D_NESTING)	/* expression nested deeper than DT_MAX_DEPTH */ \
	X(D_PREPROC)	/* the C preprocessor (-C) failed or is missing */ \
	X(D_MACRO_BADARG)	/* $N is neither an integer nor an identifier */ \
	X(D_PRINTF_CONV)	/* malformed or unknown conversion in a format */ \
	X(D_AGG_USE)	/* aggregation used as a value */ \
	X(D_DESTRUCTIVE)	/* a destructive action without -w */ \
	X(D_TOO_MANY)	/* the error limit was reached */ \
	X(D_ARR_BOUNDS)	/* a constant index past the end of a D array variable */ \
	X(D_NOMEM)	/* out of memory */

enum dt_errtag {
#define DT_X(t) t,
	DT_ERRTAGS_ILLUMOS(DT_X)
	DT_ERRTAGS_SCION(DT_X)
#undef DT_X
	DT_ERRTAG_COUNT
};

/* Where something is: file names live as long as the program. */
struct dt_loc {
	const char *file;
	int line;		/* from 1 */
	int column;		/* from 1, in bytes */
};

struct dt_error {
	enum dt_errtag tag;
	struct dt_loc loc;
	const char *message;	/* no trailing newline; one line, but for dtrace's
				   prototype messages, whose next lines start with a tab */
};

/*
 * Types. Integers keep their width and signedness, and as dtrace the C
 * type they stand for: an integer constant is an int when it fits (see
 * dt_int_literal_type), long and long long are both 8 bytes but differ
 * for printf's %ld and %lld, and a typedef's name is kept for messages.
 * Binary operators compute in the operand type of higher rank (dtrace's
 * dt_type_promote: wider wins, then unsigned); a register always holds
 * its expression's value truncated and re-extended to the type, so
 * casts, stores and results of + - * << wrap as in C. `sym` marks an
 * integer that prints as a symbol (the result of func() and sym()).
 */
enum dt_type_kind {
	DT_TYPE_VOID,		/* actions, which have no value */
	DT_TYPE_INT,
	DT_TYPE_STRING,
	DT_TYPE_THREAD,		/* pointer to the current thread: curthread */
	DT_TYPE_PTR,		/* pointer to an integer, to void, or to a pointer */
	DT_TYPE_STACK,		/* stack() as an aggregation key; size: its frames, 0 for
				   the stackframes option's */
	DT_TYPE_SOU,		/* a struct or union (ctf), an object in memory: reached by
				   ->, . and *, never held in a register */
	DT_TYPE_ARRAY,		/* a fixed-size array (ctf): its address, as C decays it */
	DT_TYPE_FLOAT,		/* float or double (size 4 or 8): its bits, which D only
				   traces and prints (%e %f %g), as dtrace has no
				   floating-point arithmetic */
};

#define DT_MAX_PTR_LEVELS 8	/* int ******** at most */

enum dt_sym_style {
	DT_SYM_NONE,
	DT_SYM_FUNC,		/* prints as the function name: func() */
	DT_SYM_SYM,		/* prints as symbol: sym() */
};

struct dt_type {
	uint32_t size;		/* bytes, for DT_TYPE_INT: 1, 2, 4 or 8; pointers: 8 */
	/*
	 * The C type (dt_ctf.c) in the program's CTF dictionary:
	 * DT_TYPE_SOU and DT_TYPE_ARRAY always; an enum's DT_TYPE_INT (for
	 * its name); a DT_TYPE_PTR whose base_kind is DT_TYPE_SOU: that
	 * struct. 0 otherwise.
	 */
	uint32_t ctf;
	/*
	 * DT_TYPE_PTR only (0 otherwise): levels of indirection (1 for
	 * `int *`, 2 for `int **`, up to DT_MAX_PTR_LEVELS) and the base type
	 * at the bottom: a struct or union (base_kind DT_TYPE_SOU, ctf), an
	 * integer of base_size bytes, or void (base_size 0).
	 */
	uint32_t base_size;
	uint8_t levels;
	uint8_t base_kind;	/* DT_TYPE_SOU or DT_TYPE_FLOAT, or 0: an integer or void */
	bool base_signed;
	uint8_t kind;		/* enum dt_type_kind */
	bool is_signed;		/* pointers: false (they compare unsigned) */
	uint8_t sym;		/* enum dt_sym_style */
	/* DT_TYPE_INT, and DT_TYPE_PTR's integer base (0 otherwise): */
	bool is_llong;		/* 8 bytes spelled long long (hrtime_t...), not long */
	uint8_t tdef;		/* the typedef it was named by (dt_impl.h), 0: none */
};

/* Name of a type ("int64", "uint8", "string", "func", ...) in buf. */
const char *dt_type_name(struct dt_type type, char *buf, size_t size);

/* Built-in variables, resolved by name; curthread's members. */
enum dt_builtin_id {
	DT_BV_TIMESTAMP, DT_BV_VTIMESTAMP, DT_BV_WALLTIMESTAMP, DT_BV_CPU, DT_BV_TID,
	DT_BV_PID, DT_BV_EXECNAME, DT_BV_PROBEPROV, DT_BV_PROBEMOD, DT_BV_PROBEFUNC,
	DT_BV_PROBENAME, DT_BV_EPID, DT_BV_ID, DT_BV_CURTHREAD,
	DT_BV_ARG0, DT_BV_ARG1, DT_BV_ARG2, DT_BV_ARG3, DT_BV_ARG4,
	DT_BV_ARG5, DT_BV_ARG6, DT_BV_ARG7, DT_BV_ARG8, DT_BV_ARG9, DT_BV_CALLER,
	DT_BV_PPID, DT_BV_UID, DT_BV_ERRNO,
	/* curpsinfo->member: named "curpsinfo->pr_pid"..., reached only through -> */
	DT_BV_PS_PID, DT_BV_PS_PPID, DT_BV_PS_FNAME, DT_BV_PS_PSARGS, DT_BV_STACKDEPTH,
	DT_BUILTIN_COUNT
};

struct dt_builtin {
	enum dt_builtin_id id;
	const char *name;
	struct dt_type type;
};

enum dt_member_id {
	DT_MEMBER_TID, DT_MEMBER_NAME, DT_MEMBER_AFFINITY, DT_MEMBER_TICKS_RUN,
	DT_MEMBER_SWITCHES_IN, DT_MEMBER_COUNT
};

/* A member of struct thread readable as curthread->name. */
struct dt_member {
	enum dt_member_id id;
	const char *name;
	struct dt_type type;
};

extern const struct dt_builtin dt_builtins[DT_BUILTIN_COUNT];
extern const struct dt_member dt_thread_members[DT_MEMBER_COUNT];

/* Functions: actions (statements only), subroutines, aggregating functions. */
enum dt_func_id {
	/* actions */
	DT_F_TRACE, DT_F_PRINTF, DT_F_PRINTA, DT_F_EXIT, DT_F_STACK, DT_F_SPECULATE,
	DT_F_COMMIT, DT_F_DISCARD, DT_F_CLEAR, DT_F_TRUNC, DT_F_NORMALIZE, DT_F_DENORMALIZE,
	DT_F_TRACEMEM, DT_F_PRINT,
	/* subroutines */
	DT_F_SPECULATION, DT_F_STRLEN, DT_F_STRJOIN, DT_F_SUBSTR, DT_F_INDEX, DT_F_LLTOSTR,
	DT_F_BASENAME, DT_F_DIRNAME, DT_F_RAND, DT_F_FUNC, DT_F_SYM, DT_F_STRSTR, DT_F_STRCHR,
	DT_F_STRRCHR, DT_F_RINDEX, DT_F_STRTOK, DT_F_COPYIN, DT_F_COPYINSTR, DT_F_STRINGOF,
	DT_F_TOUPPER, DT_F_TOLOWER, DT_F_STRTOLL, DT_F_HTONS, DT_F_HTONL, DT_F_HTONLL, DT_F_NTOHS,
	DT_F_NTOHL, DT_F_NTOHLL, DT_F_CLEANPATH,
	/* aggregating functions */
	DT_F_COUNT, DT_F_SUM, DT_F_MIN, DT_F_MAX, DT_F_AVG, DT_F_STDDEV, DT_F_QUANTIZE,
	DT_F_LQUANTIZE, DT_F_LLQUANTIZE,
	/* destructive actions (allowed with -w, the destructive option) */
	DT_F_CHILL, DT_F_RAISE, DT_F_PANIC, DT_F_BREAKPOINT, DT_F_STOP, DT_F_PAUSE,
	/* subroutines of scratch memory (alloca's is the only memory D writes) */
	DT_F_ALLOCA, DT_F_BCOPY, DT_F_COPYINTO,
	DT_FUNC_COUNT
};

enum dt_func_kind {
	DT_FK_ACTION,		/* a statement of its own; records data or controls */
	DT_FK_SUBR,		/* a value in an expression */
	DT_FK_AGG,		/* only as the right side of @name[keys] = */
};

/* What an argument must be. */
enum dt_arg_kind {
	DT_ARG_NONE,		/* no more parameters */
	DT_ARG_INT,		/* integer expression */
	DT_ARG_STRING,		/* string expression */
	DT_ARG_SCALAR_OR_STRING,/* anything with a value (trace) */
	DT_ARG_INT_CONST,	/* integer constant expression */
	DT_ARG_FORMAT,		/* string literal: a printf format */
	DT_ARG_AGG,		/* an aggregation: @name */
	DT_ARG_ADDRESS,		/* an address: a pointer, an integer, a string (char array) */
};

#define DT_FUNC_MAX_PARAMS 6

struct dt_func {
	enum dt_func_id id;
	const char *name;
	enum dt_func_kind kind;
	uint8_t min_args, max_args;	/* max_args 255: variadic */
	uint8_t params[DT_FUNC_MAX_PARAMS];	/* enum dt_arg_kind; the last repeats */
	struct dt_type result;		/* DT_TYPE_VOID for actions */
	bool records_data;		/* writes to the trace buffer (speculation rules) */
};

extern const struct dt_func dt_funcs[DT_FUNC_COUNT];

/* Variables: one per name and scope, in order of first declaration or use. */
enum dt_scope {
	DT_SCOPE_GLOBAL,	/* x */
	DT_SCOPE_THREAD,	/* self->x */
	DT_SCOPE_CLAUSE,	/* this->x */
	DT_SCOPE_COUNT
};

struct dt_var {
	const char *name;
	enum dt_scope scope;
	int id;			/* 0, 1, ... within its scope */
	struct dt_type type;
	bool is_array;		/* associative array: keys[] holds its signature */
	bool declared;		/* by a declaration; otherwise by its first assignment */
	int nkeys;
	struct dt_type keys[DT_MAX_KEYS];
	struct dt_loc loc;	/* declaration or first assignment */
	struct dt_var *next;	/* program's list */
};

/* An aggregation (@name; the anonymous one has the name ""). */
struct dt_agg {
	const char *name;
	int id;
	const struct dt_func *func;	/* its aggregating function */
	int nkeys;
	struct dt_type keys[DT_MAX_KEYS];
	int64_t lq_low, lq_high, lq_step;	/* lquantize's constants; llquantize's low and
					   high magnitudes and DOF_LLQ_PACK(factor, nsteps) */
	bool defined;			/* assigned somewhere (else only referenced) */
	struct dt_loc loc;		/* first definition */
	struct dt_agg *next;
};

/* Operators of unary, binary, assignment and increment nodes. */
enum dt_op {
	DT_OP_NONE,
	DT_OP_ADD, DT_OP_SUB, DT_OP_MUL, DT_OP_DIV, DT_OP_MOD,
	DT_OP_SHL, DT_OP_SHR, DT_OP_BAND, DT_OP_BOR, DT_OP_BXOR,
	DT_OP_LAND, DT_OP_LOR, DT_OP_LXOR,	/* short-circuit (^^ evaluates both) */
	DT_OP_EQ, DT_OP_NE, DT_OP_LT, DT_OP_LE, DT_OP_GT, DT_OP_GE,
	DT_OP_NEG, DT_OP_PLUS, DT_OP_BNOT, DT_OP_LNOT, DT_OP_DEREF, DT_OP_ADDROF,
	DT_OP_PREINC, DT_OP_PREDEC, DT_OP_POSTINC, DT_OP_POSTDEC,
	DT_OP_COUNT
};

/* Source spelling of an operator ("+", "<<", "pre++", ...). */
const char *dt_op_name(enum dt_op op);

enum dt_node_kind {
	DT_N_INT,	/* value */
	DT_N_STRING,	/* str, len */
	DT_N_BUILTIN,	/* ref.builtin */
	DT_N_VAR,	/* ref.var: a scalar variable of any scope */
	DT_N_ARRAY,	/* ref.var[args...]: an associative array element */
	DT_N_MEMBER,	/* left->ref.member: a built-in member of the current thread */
	DT_N_FIELD,	/* the object at address left + value (left NULL: at value):
			   a struct member, array element or *p of a C type; a
			   bit-field when bits (it is bits wide, shift from the
			   unit's low bit in the value loaded) */
	DT_N_AGGREF,	/* ref.agg, as an argument of printa, clear, ... */
	DT_N_UNARY,	/* op left */
	DT_N_BINARY,	/* left op right (comparisons compare strings too) */
	DT_N_TERNARY,	/* cond ? left : right */
	DT_N_ASSIGN,	/* left = right; op != NONE: left op= right */
	DT_N_INCDEC,	/* op in PREINC..POSTDEC, on left */
	DT_N_CAST,	/* (type) left; the node's type is the target */
	DT_N_CALL,	/* ref.func(args...): a subroutine, or stack() as an aggregation
			   key (type DT_TYPE_STACK) */
	DT_N_COMMA,	/* left, right */
	/* Only in programs with errors (the checker replaces them): */
	DT_N_IDENT,	/* str: a bare identifier before resolution */
	DT_N_INDEX,	/* left[args...] before resolution */
	DT_N_DOT,	/* left.str before resolution (left->str is DT_N_MEMBER's) */
	DT_N_SIZEOF,	/* sizeof left before resolution */
	DT_N_XLATE,	/* xlate <type> (left), before its member is resolved */
	DT_N_AGGNAME,	/* str: @name before resolution */
};

struct dt_node {
	enum dt_node_kind kind;
	enum dt_op op;
	struct dt_loc loc;
	struct dt_type type;
	int depth;			/* nesting below and including this node */
	uint64_t value;			/* DT_N_INT (signed per type.is_signed) */
	const char *str;		/* DT_N_STRING bytes (NUL-terminated too), names */
	size_t len;
	struct dt_node *cond, *left, *right;
	struct dt_node *args;		/* DT_N_CALL/ARRAY/INDEX: linked by next */
	int nargs;
	struct dt_node *next;
	union {
		const struct dt_builtin *builtin;
		const struct dt_member *member;
		const struct dt_func *func;
		struct dt_var *var;
		struct dt_agg *agg;
	} ref;
	enum dt_scope scope;		/* DT_N_VAR/ARRAY (also before resolution) */
	uint8_t bits, shift;		/* DT_N_FIELD of a bit-field */
	uint32_t bound;			/* DT_N_BINARY base + index into an array D
					   keeps (a variable's): its elements, which
					   the index is checked against at run time */
};

/* A conversion of a printf/printa format, as written. */
struct dt_conv {
	size_t offset, length;	/* of "%...c" in the format text */
	char conv;		/* d i u o x X c s p a A Y */
	char name[8];		/* dtrace's name: conv after its h/l/L size prefix ("lld") */
	int number;		/* dtrace's number for it in messages (%% counted), from 1 */
	bool star_width;	/* width from an int argument before the value */
	bool star_precision;
	bool agg_value;		/* %@...: printa's aggregation value */
	/*
	 * What it prints. printf: the index of its value in the statement's
	 * args (the format is 0; a * width or precision takes the index(es)
	 * just before). printa: the key's index, or for %@ the index of the
	 * aggregation among printa's aggregations (the last one for every %@
	 * past their number, as dtrace prints it again).
	 */
	int arg;
};

struct dt_format {
	const char *text;
	size_t len;
	int nconv;		/* conversions other than %% */
	struct dt_conv *convs;
};

enum dt_stmt_kind {
	DT_S_EXPR,		/* expr evaluated for its effect (assignments...) */
	DT_S_ACTION,		/* func(args...) with func->kind == DT_FK_ACTION */
	DT_S_AGG,		/* @agg[keys] = func(args) */
};

struct dt_stmt {
	enum dt_stmt_kind kind;
	struct dt_loc loc;
	struct dt_node *expr;		/* DT_S_EXPR */
	const struct dt_func *func;	/* DT_S_ACTION, DT_S_AGG */
	struct dt_node *args;		/* the call's arguments, linked by next */
	int nargs;
	struct dt_format *format;	/* printf and printa with a format (args[0]) */
	struct dt_agg *agg;		/* DT_S_AGG */
	struct dt_node *keys;		/* DT_S_AGG, linked by next */
	int nkeys;
	struct dt_stmt *next;
};

/* provider:module:function:name, missing parts filled from the left with "". */
struct dt_probedesc {
	const char *text;		/* as written, macro arguments expanded */
	const char *provider, *module, *function, *name;
	struct dt_loc loc;
	struct dt_probedesc *next;
};

struct dt_clause {
	int index;
	struct dt_loc loc;
	struct dt_probedesc *probes;
	int nprobes;
	struct dt_node *predicate;	/* NULL: none */
	struct dt_stmt *stmts;		/* NULL: empty action list */
	int nstmts;
	bool default_action;		/* -n "BEGIN" with no { }: trace the probe */
	bool speculative;		/* calls speculate() */
	struct dt_clause *next;
};

struct dt_program {
	const char *filename;		/* dt_compile_args.filename (names it in errors) */
	struct dt_clause *clauses;
	int nclauses;
	struct dt_var *vars;		/* all scopes, in order of creation */
	int nvars[DT_SCOPE_COUNT];
	struct dt_agg *aggs;
	int naggs;
	struct dt_options options;	/* dt_compile_args.options, then #pragmas */
	struct dt_error errors[DT_MAX_ERRORS + 1];
	int nerrors;
	struct dt_arena *arena;		/* owns everything above */
	struct dt_ctf *ctf;		/* the C types (dt_ctf.c): kernel's and declared */
};

/* dt_compile_args.flags */
#define DT_COMPILE_CPP		0x1	/* run the C preprocessor first (-C) */
#define DT_COMPILE_PROBESPEC	0x2	/* source is a -n argument: "BEGIN" alone is a clause */
#define DT_COMPILE_BIG_ENDIAN	0x4	/* the kernel is big-endian (sparc64): bit-field positions */

struct dt_compile_args {
	const char *filename;		/* names the source in errors and $0 */
	int argc;			/* macro arguments $1..$argc */
	const char *const *argv;	/* argv[0] is $1 */
	const char *target;		/* $target's text (the -p PID), or NULL: undefined */
	unsigned flags;
	const struct dt_options *options;	/* -x options (defaultargs...), or NULL */
	const char *cpp;		/* preprocessor command; NULL: "cpp" */
	/*
	 * The kernel's symbols for `name and kernel`name: `nm --defined-only`
	 * lines ("ADDRESS TYPE NAME"), NUL-terminated; NULL: none, and such
	 * references are refused.
	 */
	const char *ksyms;
	/*
	 * The kernel's types: the CTF archive the build writes next to the
	 * kernel (kernel.ctf), types_len bytes; NULL: none, and curthread,
	 * args[] and `name have only the built-in types.
	 */
	const void *types;
	size_t types_len;
};

/*
 * Compile source[0..length). Returns NULL only when no memory is left for
 * the program itself; otherwise check program->nerrors.
 */
struct dt_program *dt_compile_with(const char *source, size_t length,
				   const struct dt_compile_args *args);
/* The same with the common arguments; argv[0] is $1. */
struct dt_program *dt_compile(const char *source, size_t length, const char *filename,
			      int argc, const char *const *argv, unsigned flags);
void dt_program_free(struct dt_program *program);

/*
 * dt_program_probe_args - the C types of args[0], args[1], ... of probe
 *   ("provider:module:function:name", as the kernel lists it), from the
 *   kernel types program was compiled with (-T): fbt's from the
 *   function's prototype, a statically defined probe's from the
 *   kernel's declaration of it (scion/sdt_types.h).
 * Return value: how many (at most max; 0: it has none), each named in
 *   types[i]; -1 when the types say nothing of the probe (or the program
 *   has no kernel types).
 */
int dt_program_probe_args(struct dt_program *program, const char *probe, char types[][128],
			  int max);

/*
 * The checked program as S-expressions, deterministic (same input, same
 * text): options set, variables, aggregations, then clauses. malloc'd;
 * NULL when out of memory.
 */
char *dt_program_dump(const struct dt_program *program);

enum dt_error_style {
	DT_ERRFMT_DTRACE,	/* dtrace: failed to compile script FILE: line N: MESSAGE */
	DT_ERRFMT_TAGGED,	/* FILE:LINE:COLUMN: D_TAG: MESSAGE */
};

/* Format one error like snprintf (returns the length it needed). */
int dt_error_format(const struct dt_error *error, enum dt_error_style style, char *buf,
		    size_t size);
const char *dt_errtag_name(enum dt_errtag tag);

/* ---- Code generation: DIF programs and the trace object (dt_cg*.c, dt_dof.c) ---- */

/* One value the consumer reads from a record or an aggregation key. */
enum dt_datum_kind {
	DT_DATUM_INT,		/* 8 bytes, sign- or zero-extended from type.size */
	DT_DATUM_STRING,	/* strsize bytes, NUL-padded */
	DT_DATUM_STACK,		/* frames x 8-byte kernel PCs, innermost first, 0-padded */
	DT_DATUM_BYTES,		/* a struct or array traced whole: its size bytes, as in memory */
};

struct dt_datum {
	enum dt_datum_kind kind;
	uint32_t offset;	/* record: from the record's start (its header included);
				   aggregation key: from the key's start */
	uint32_t size;		/* bytes */
	struct dt_type type;	/* DT_DATUM_INT: the declared width, signedness, sym style */
	uint32_t frames;	/* DT_DATUM_STACK */
};

/* What the consumer does with each record of a clause, in statement order. */
enum dt_action_kind {
	DT_ACTION_TRACE, DT_ACTION_PRINTF, DT_ACTION_PRINTA, DT_ACTION_STACK, DT_ACTION_EXIT,
	DT_ACTION_CLEAR, DT_ACTION_TRUNC, DT_ACTION_NORMALIZE, DT_ACTION_DENORMALIZE,
	DT_ACTION_TRACEMEM, DT_ACTION_PRINT,
};

struct dt_action {
	enum dt_action_kind kind;
	const struct dt_stmt *stmt;
	const struct dt_format *format;	/* printf, and printa with a format; else NULL */
	int ndata;			/* trace, stack, exit, normalize: 1; trunc: 0 or 1;
					   printf: its arguments after the format */
	struct dt_datum *data;
	int naggs;			/* printa: its aggregations; clear, trunc, normalize,
					   denormalize: 1 */
	int *aggs;			/* aggregation ids */
};

/* One action of a clause as the object encodes it for the kernel. */
struct dt_kaction {
	uint16_t kind;			/* DOF_ACT_* */
	uint16_t nprogs;
	uint32_t arg;			/* STACK: frames; AGGREGATE: the aggregation id */
	uint32_t *progs;		/* indexes into dt_object.progs */
};

struct dt_clause_code {
	const struct dt_clause *clause;
	uint32_t predicate;		/* program index, or DOF_NONE */
	uint16_t flags;			/* DOF_CLAUSE_* */
	bool default_action;		/* no statements: the consumer prints the probe */
	uint32_t size;			/* record bytes, dof_rechdr included and rounded up
					   to 8; 0 without DOF_CLAUSE_RECORD */
	int nkactions;
	struct dt_kaction *kactions;
	int nactions;
	struct dt_action *actions;
};

struct dt_agg_code {
	const struct dt_agg *agg;
	uint8_t func;			/* DOF_AGG_* */
	int nkeys;
	struct dt_datum keys[DT_MAX_KEYS];	/* back to back: offsets from the key's start */
	uint32_t keybytes;
};

/*
 * The generated code of a program. Everything it points to lives in the
 * program's arena, until dt_program_free(program); it points into the
 * program's AST (clauses, statements, formats) too.
 */
struct dt_object {
	const struct dt_program *program;
	uint16_t strsize;		/* bytes of every string value, NUL included */
	uint32_t nprogs;
	struct dif_prog *progs;		/* each passed dif_verify */
	int nclauses;
	struct dt_clause_code *clauses;	/* in clause order */
	int naggs;
	struct dt_agg_code *aggs;	/* by aggregation id */
	bool option_set[DOF_OPT_LIMIT];	/* the object's options (DOF_OPT_*) */
	uint64_t option[DOF_OPT_LIMIT];
	const uint8_t *bytes;		/* the object, as scion/dof.h lays it out */
	size_t size;
};

/*
 * dt_generate - generate the code of a checked program (nerrors == 0).
 * One DIF program per predicate, per run of assignment statements, per
 * recorded value (trace, each printf argument, exit, trunc and normalize),
 * per aggregation key and value, and per speculate/commit/discard.
 * Return value: 0 with *out set; or -1, *out NULL, with the reasons
 * appended to program->errors (D_CG_EXPR "expression too complex", the
 * object format's limits, D_NOMEM...), which dt_error_format formats.
 */
int dt_generate(struct dt_program *program, struct dt_object **out);

/*
 * The object as one JSON document for the host consumer (host/dtrace/
 * dt_json.c describes it): the object's bytes in hex, the options, the
 * aggregations and each clause's record layout and actions. malloc'd,
 * NUL-terminated; NULL when out of memory.
 */
char *dt_object_json(const struct dt_object *obj);
/* The DOF_OPT_* an option travels as in the object, or 0 when it does not. */
enum dof_option dt_option_in_object(enum dt_option_id id);

/* The object's clauses, actions and disassembled programs as text (dtc -S); like json. */
char *dt_object_disasm(const struct dt_object *obj);

#endif
