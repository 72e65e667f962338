// SPDX-License-Identifier: BSD-2-Clause
/*
 * The semantic pass, names: the built-in variables and curthread's
 * members, the dtrace built-ins this subset refuses, and the program's
 * variables of the three scopes (global, self->, this->) and
 * associative arrays: lookup (through a hash table shared with the
 * aggregations), creation on first assignment, declarations, key
 * signatures and type compatibility.
 *
 * Rules (dtrace's, where it has them):
 * - A global must be declared or assigned before it is read (in source
 *   order). self->x and this->x read before any assignment are created
 *   as int64 (their value is 0 until assigned), so a later assignment of
 *   a string to them is a type conflict unless they are declared.
 * - A variable's type is its declaration's, else its first assignment's;
 *   integers of any width are compatible with each other, strings only
 *   with strings, curthread only with itself.
 * - An associative array has one key signature (count and the class of
 *   each key) for every use; clause-local arrays do not exist. Indexing
 *   anything else (a scalar variable, a built-in, an expression) is C's
 *   *(x + i): a pointer's element, else an error (dt_check_pointer_index).
 *
 * Invariant: a node becomes DT_N_VAR/DT_N_ARRAY/DT_N_BUILTIN only once it
 * resolved without error; variable ids count up from 0 per scope in the
 * order variables come into being.
 */
#include <stdio.h>
#include <string.h>
#include "dt_impl.h"

#define STR_T { .kind = DT_TYPE_STRING }
#define ARG_T DT_INT_T(8, true, DT_TD_INT64)

/* Typed as dtrace types them, but for tid (Scion's tid_t is 64-bit). */
const struct dt_builtin dt_builtins[DT_BUILTIN_COUNT] = {
	{ DT_BV_TIMESTAMP, "timestamp", DT_INT_T(8, false, DT_TD_UINT64) },
	{ DT_BV_VTIMESTAMP, "vtimestamp", DT_INT_T(8, false, DT_TD_UINT64) },
	{ DT_BV_WALLTIMESTAMP, "walltimestamp", DT_INT_T(8, true, DT_TD_INT64) },
	{ DT_BV_CPU, "cpu", DT_INT_T(4, true, DT_TD_PROCESSORID) },
	{ DT_BV_TID, "tid", DT_INT_T(8, false, DT_TD_TID) },
	{ DT_BV_PID, "pid", DT_INT_T(4, true, DT_TD_PID) },
	{ DT_BV_EXECNAME, "execname", STR_T },
	{ DT_BV_PROBEPROV, "probeprov", STR_T },
	{ DT_BV_PROBEMOD, "probemod", STR_T },
	{ DT_BV_PROBEFUNC, "probefunc", STR_T },
	{ DT_BV_PROBENAME, "probename", STR_T },
	{ DT_BV_EPID, "epid", DT_INT_T(4, false, DT_TD_UINT) },
	{ DT_BV_ID, "id", DT_INT_T(4, false, DT_TD_UINT) },
	{ DT_BV_CURTHREAD, "curthread", { .kind = DT_TYPE_THREAD, .size = 8 } },
	{ DT_BV_ARG0, "arg0", ARG_T }, { DT_BV_ARG1, "arg1", ARG_T },
	{ DT_BV_ARG2, "arg2", ARG_T }, { DT_BV_ARG3, "arg3", ARG_T },
	{ DT_BV_ARG4, "arg4", ARG_T }, { DT_BV_ARG5, "arg5", ARG_T },
	{ DT_BV_ARG6, "arg6", ARG_T }, { DT_BV_ARG7, "arg7", ARG_T },
	{ DT_BV_ARG8, "arg8", ARG_T }, { DT_BV_ARG9, "arg9", ARG_T },
	{ DT_BV_CALLER, "caller", DT_INT_T(8, false, DT_TD_UINTPTR) },
	{ DT_BV_PPID, "ppid", DT_INT_T(4, true, DT_TD_PID) },
	{ DT_BV_UID, "uid", DT_INT_T(4, false, DT_TD_UINT) },
	{ DT_BV_ERRNO, "errno", DT_INT_T(4, true, DT_TD_NONE) },
	{ DT_BV_PS_PID, "curpsinfo->pr_pid", DT_INT_T(4, true, DT_TD_PID) },
	{ DT_BV_PS_PPID, "curpsinfo->pr_ppid", DT_INT_T(4, true, DT_TD_PID) },
	{ DT_BV_PS_FNAME, "curpsinfo->pr_fname", STR_T },
	{ DT_BV_PS_PSARGS, "curpsinfo->pr_psargs", STR_T },
	{ DT_BV_STACKDEPTH, "stackdepth", DT_INT_T(4, false, DT_TD_UINT32) },
};

/* struct thread's members readable through curthread (kernel/include/scion/thread.h). */
const struct dt_member dt_thread_members[DT_MEMBER_COUNT] = {
	{ DT_MEMBER_TID, "tid", DT_INT_T(8, false, DT_TD_TID) },
	{ DT_MEMBER_NAME, "name", STR_T },
	{ DT_MEMBER_AFFINITY, "affinity", DT_INT_T(4, true, DT_TD_NONE) },
	{ DT_MEMBER_TICKS_RUN, "ticks_run", DT_INT_T(8, false, DT_TD_UINT64) },
	{ DT_MEMBER_SWITCHES_IN, "switches_in", DT_INT_T(8, false, DT_TD_UINT64) },
};

/* dtrace built-ins this subset refuses, and why. */
static const struct {
	const char *name;
	enum dt_errtag tag;
	const char *why;
} refused_idents[] = {
	{ "args", D_ARGS_NONE, "args[] is not supported: use arg0..arg9" },
	{ "uregs", D_UNSUPPORTED, "uregs[] is not supported: Scion traces only the kernel" },
	{ "ucaller", D_UNSUPPORTED, "ucaller is not supported: Scion traces only the kernel" },
	{ "ustackdepth", D_UNSUPPORTED, "ustackdepth is not supported: Scion traces only "
	  "the kernel" },
	{ "gid", D_UNSUPPORTED, "gid is not supported: Scion has no users" },
	{ "zonename", D_UNSUPPORTED, "zonename is not supported: Scion has no zones" },
	{ "cwd", D_UNSUPPORTED, "cwd is not supported yet" },
	{ "root", D_UNSUPPORTED, "root is not supported: Scion processes share one root" },
	{ "curpsinfo", D_UNSUPPORTED, "curpsinfo is readable only through its members: "
	  "curpsinfo->pr_pid, pr_ppid, pr_fname, pr_psargs" },
	{ "curlwpsinfo", D_UNSUPPORTED, "curlwpsinfo is not supported: use curthread" },
	{ "curcpu", D_UNSUPPORTED, "curcpu is not supported: use cpu" },
	{ "ipl", D_UNSUPPORTED, "ipl is not supported" },
};

static const char *const scope_prefix[DT_SCOPE_COUNT] = { "", "self->", "this->" };

const struct dt_builtin *dt_builtin_lookup(const char *name)
{
	for (int i = 0; i < DT_BUILTIN_COUNT; i++)
		if (!strcmp(dt_builtins[i].name, name))
			return &dt_builtins[i];
	return NULL;
}

static uint64_t sym_hash(int ns, const char *name)
{
	uint64_t h = 1469598103934665603ull ^ (uint64_t)ns;	/* FNV-1a */
	for (const unsigned char *c = (const unsigned char *)name; *c; c++)
		h = (h ^ *c) * 1099511628211ull;
	return h;
}

void *dt_sym_find(const struct dt_symtab *t, int ns, const char *name)
{
	if (!t->cap)
		return NULL;
	for (size_t i = sym_hash(ns, name) & (t->cap - 1);; i = (i + 1) & (t->cap - 1)) {
		const struct dt_symslot *s = &t->slots[i];
		if (!s->name)
			return NULL;
		if (s->ns == ns && !strcmp(s->name, name))
			return s->sym;
	}
}

void dt_sym_add(struct dt_ctx *ctx, struct dt_symtab *t, int ns, const char *name, void *sym)
{
	if (2 * (t->count + 1) > t->cap) {
		struct dt_symtab bigger = { .cap = t->cap ? 2 * t->cap : 64 };
		bigger.slots = dt_alloc(ctx, bigger.cap * sizeof(*bigger.slots));
		for (size_t i = 0; i < t->cap; i++)
			if (t->slots[i].name)
				dt_sym_add(ctx, &bigger, t->slots[i].ns, t->slots[i].name,
					   t->slots[i].sym);
		*t = bigger;
	}
	size_t i = sym_hash(ns, name) & (t->cap - 1);
	while (t->slots[i].name)
		i = (i + 1) & (t->cap - 1);
	t->slots[i] = (struct dt_symslot){ name, ns, sym };
	t->count++;
}

static struct dt_var *var_lookup(struct dt_checker *ck, enum dt_scope scope, const char *name)
{
	return dt_sym_find(&ck->syms, (int)scope, name);
}

static struct dt_var *var_new(struct dt_checker *ck, enum dt_scope scope, const char *name,
			      struct dt_type type, struct dt_loc loc)
{
	struct dt_var *v = dt_alloc(ck->ctx, sizeof(*v));
	v->name = name;
	v->scope = scope;
	v->type = type;
	v->loc = loc;
	v->id = ck->prog->nvars[scope]++;
	*ck->vars_tail = v;
	ck->vars_tail = &v->next;
	dt_sym_add(ck->ctx, &ck->syms, (int)scope, name, v);
	return v;
}

static bool is_refused_ident(const char *name)
{
	for (size_t i = 0; i < sizeof(refused_idents) / sizeof(refused_idents[0]); i++)
		if (!strcmp(refused_idents[i].name, name))
			return true;
	return false;
}

/* Names a global can never have: built-ins, NULL, functions, refused built-ins. */
static bool is_reserved(const char *name)
{
	return dt_builtin_lookup(name) || !strcmp(name, "NULL") || dt_func_lookup(name) ||
	       dt_func_refusal(name) || is_refused_ident(name);
}

bool dt_is_null(const struct dt_node *n)
{
	return n->kind == DT_N_INT && n->type.kind == DT_TYPE_PTR && n->value == 0;
}

/* An identifier that is not a variable: say what it is, or that it is unknown. */
static void unknown_ident(struct dt_checker *ck, struct dt_node *n)
{
	for (size_t i = 0; i < sizeof(refused_idents) / sizeof(refused_idents[0]); i++)
		if (!strcmp(refused_idents[i].name, n->str)) {
			dt_error(ck->ctx, n->loc, refused_idents[i].tag, "%s", refused_idents[i].why);
			return;
		}
	if (dt_func_lookup(n->str) || dt_func_refusal(n->str))
		dt_error(ck->ctx, n->loc, D_FUNC_IDKIND, "%s is a function: call it as %s(...)",
			 n->str, n->str);
	else
		dt_error(ck->ctx, n->loc, D_IDENT_UNDEF, "failed to resolve %s: unknown variable "
			 "name (assign or declare it before this use)", n->str);
}

static void resolve_to_var(struct dt_node *n, struct dt_var *v)
{
	n->kind = v->is_array ? DT_N_ARRAY : DT_N_VAR;
	n->ref.var = v;
	n->scope = v->scope;
	n->str = v->name;
	n->type = v->type;
}

bool dt_var_by_reference(const struct dt_var *v)
{
	return v->type.kind == DT_TYPE_SOU || v->type.kind == DT_TYPE_ARRAY;
}

/*
 * A struct or fixed-size array variable is the object at its storage's
 * address (a DT_N_FIELD whose base is the variable, whose load gives
 * that address), so ., [], & and stores reach it as any object in memory.
 * So is such an element of an associative array, and a thread-local
 * one: their storage is made on first use, zeroed, and kept for the
 * session (the kernel's dynamic space), as DTrace faults them in.
 */
static void resolve_by_reference(struct dt_checker *ck, struct dt_node *n)
{
	struct dt_node *var = dt_node_new(ck->ctx, DT_N_VAR, n->loc);
	*var = *n;
	var->type = dt_type_pointer_to(dt_type_void);
	n->kind = DT_N_FIELD;
	n->left = var;
	n->value = 0;
	n->bits = n->shift = 0;
	n->ref.var = NULL;
	n->depth = var->depth + 1;
}

/* Can a value of type t be stored in v? Reports D_OP_INCOMPAT if not. */
static bool assignable(struct dt_checker *ck, struct dt_loc loc, struct dt_var *v,
		       struct dt_type t)
{
	if (dt_type_same_class(v->type, t))
		return true;
	dt_error(ck->ctx, loc, D_OP_INCOMPAT, "operands have incompatible types: %s%s is %s, "
		 "the value is %s", scope_prefix[v->scope], v->name, dt_type_str(ck->ctx, v->type),
		 dt_type_str(ck->ctx, t));
	return false;
}

/* Keys: each checked, of a valid type; optionally against a signature. */
static bool check_keys(struct dt_checker *ck, struct dt_node *keys, const char *what,
		       int nexpect, const struct dt_type *expect, struct dt_loc loc, int nkeys)
{
	int i = 0;
	for (struct dt_node *k = keys; k; k = k->next, i++) {
		if (!dt_check_expr(ck, k))
			return false;
		if (k->type.kind == DT_TYPE_VOID || k->type.kind == DT_TYPE_FLOAT) {
			dt_error(ck->ctx, k->loc, D_KEY_TYPE, "%s key #%d %s", what, i + 1,
				 k->type.kind == DT_TYPE_FLOAT ? "cannot be a floating-point value" :
				 "has no value");
			return false;
		}
	}
	if (nkeys > DT_MAX_KEYS) {
		dt_error(ck->ctx, loc, D_KEY_TYPE, "%s has more than %d keys", what, DT_MAX_KEYS);
		return false;
	}
	if (nexpect < 0)
		return true;
	if (nkeys != nexpect) {
		dt_error(ck->ctx, loc, D_PROTO_LEN, "%s[ ] prototype mismatch: %d key%s given, %d "
			 "expected", what, nkeys, nkeys == 1 ? "" : "s", nexpect);
		return false;
	}
	i = 0;
	for (struct dt_node *k = keys; k; k = k->next, i++)
		if (!dt_type_same_class(k->type, expect[i])) {
			dt_error(ck->ctx, k->loc, D_PROTO_ARG, "%s[ ] key #%d is incompatible with "
				 "prototype: expected %s, got %s", what, i + 1, dt_type_str(ck->ctx, expect[i]),
				 dt_type_str(ck->ctx, k->type));
			return false;
		}
	return true;
}

static void take_key_types(struct dt_var *v, const struct dt_node *keys)
{
	v->is_array = true;
	v->nkeys = 0;
	for (const struct dt_node *k = keys; k && v->nkeys < DT_MAX_KEYS; k = k->next)
		v->keys[v->nkeys++] = k->type;
}

/*
 * a[keys] or self->a[keys]. value is the type stored (lvalues), or NULL
 * for a read; a read of an unknown self->a creates it as int64.
 */
bool dt_resolve_array(struct dt_checker *ck, struct dt_node *n, const struct dt_type *value)
{
	struct dt_node *base = n->left;
	char what[300];

	if (base->kind == DT_N_AGGNAME) {
		dt_error(ck->ctx, n->loc, D_AGG_USE, "@%s cannot be used as a value: aggregations "
			 "are printed with printa()", base->str);
		return false;
	}
	if (base->kind == DT_N_IDENT && !strcmp(base->str, "args") && !value &&
	    !var_lookup(ck, DT_SCOPE_GLOBAL, "args"))
		return dt_check_args(ck, n);
	/* As dtrace: anything but an array variable indexes as C does, *(base + i). */
	if (base->kind != DT_N_IDENT && !(base->kind == DT_N_VAR && !base->ref.var))
		return dt_check_pointer_index(ck, n, value != NULL);
	enum dt_scope scope = base->kind == DT_N_IDENT ? DT_SCOPE_GLOBAL : base->scope;
	struct dt_var *v = var_lookup(ck, scope, base->str);
	if ((v && !v->is_array) || (!v && scope == DT_SCOPE_GLOBAL && dt_builtin_lookup(base->str)))
		return dt_check_pointer_index(ck, n, value != NULL);
	if (scope == DT_SCOPE_CLAUSE) {
		dt_error(ck->ctx, n->loc, D_DECL_LOCASSC, "clause-local (this->) associative arrays "
			 "are not supported: this->%s", base->str);
		return false;
	}
	snprintf(what, sizeof(what), "%s%s", scope_prefix[scope], base->str);

	if (!v && scope == DT_SCOPE_GLOBAL && !value) {
		unknown_ident(ck, base);
		return false;
	}
	if (scope == DT_SCOPE_GLOBAL && !v && is_reserved(base->str)) {
		if (is_refused_ident(base->str))
			unknown_ident(ck, base);
		else
			dt_error(ck->ctx, n->loc, D_OP_WRITE, "%s is not a writable variable",
				 base->str);
		return false;
	}
	if (!check_keys(ck, n->args, what, v ? v->nkeys : -1, v ? v->keys : NULL, n->loc,
			n->nargs))
		return false;
	if (v && value && dt_var_by_reference(v)) {
		dt_error(ck->ctx, n->loc, D_OP_LVAL, "%s[ ] is %s: assign its members or elements, "
			 "or fill it with bcopy( )", what, dt_type_str(ck->ctx, v->type));
		return false;
	}
	if (v && value && !assignable(ck, n->loc, v, *value))
		return false;
	if (!v) {
		v = var_new(ck, scope, base->str, value ? *value : dt_type_int64, n->loc);
		take_key_types(v, n->args);
	}
	resolve_to_var(n, v);
	n->left = NULL;
	if (dt_var_by_reference(v))
		resolve_by_reference(ck, n);	/* an element is its storage, as a variable's */
	return true;
}

/* A scalar read: x, self->x, this->x. */
bool dt_resolve_read(struct dt_checker *ck, struct dt_node *n)
{
	if (n->kind == DT_N_IDENT && !strcmp(n->str, "NULL")) {
		/* D's NULL: a void * constant 0 (strtok(NULL, ...), comparisons with strings). */
		n->kind = DT_N_INT;
		n->value = 0;
		n->type = dt_type_pointer_to(dt_type_void);
		return true;
	}
	struct dt_inline *in = n->kind == DT_N_IDENT ? dt_inline_lookup(ck->ctx, n->str) : NULL;
	if (in)
		return dt_inline_expand(ck, n, in);
	if (n->kind == DT_N_IDENT) {
		const struct dt_builtin *b = dt_builtin_lookup(n->str);
		if (b) {
			n->kind = DT_N_BUILTIN;
			n->ref.builtin = b;
			n->type = b->type;
			/* With the kernel's types, curthread is the kernel's struct thread *. */
			if (b->id == DT_BV_CURTHREAD && dt_ctf_has_kernel(ck->ctx))
				dt_ctf_lookup(ck->ctx, "struct thread *", &n->type);
			return true;
		}
	}
	enum dt_scope scope = n->kind == DT_N_IDENT ? DT_SCOPE_GLOBAL : n->scope;
	struct dt_var *v = var_lookup(ck, scope, n->str);
	int64_t enumerator;
	if (!v && scope == DT_SCOPE_GLOBAL &&
	    dt_ctf_enumerator(ck->ctx, n->str, &enumerator, &n->type)) {
		n->kind = DT_N_INT;
		n->value = (uint64_t)enumerator;
		return true;
	}
	if (!v) {
		if (scope == DT_SCOPE_GLOBAL) {
			unknown_ident(ck, n);
			return false;
		}
		v = var_new(ck, scope, n->str, dt_type_int64, n->loc);
	}
	if (v->is_array) {
		dt_error(ck->ctx, n->loc, D_ARR_BADREF, "%s%s is an associative array: index it, "
			 "e.g. %s%s[key]", scope_prefix[scope], n->str, scope_prefix[scope], n->str);
		return false;
	}
	resolve_to_var(n, v);
	if (dt_var_by_reference(v))
		resolve_by_reference(ck, n);
	return true;
}

/* The left side of =: created with the value's type if new. */
/* A value stored in memory: an integer or a pointer (the store narrows it to the object). */
static bool memory_value_ok(struct dt_checker *ck, const struct dt_node *n, struct dt_type value)
{
	if (value.kind == DT_TYPE_INT || value.kind == DT_TYPE_PTR)
		return true;
	dt_error(ck->ctx, n->loc, D_OP_INCOMPAT, "a %s cannot be stored in memory: D stores "
		 "integers and pointers (copy bytes with bcopy( ))", dt_type_str(ck->ctx, value));
	return false;
}

/* p->m = ..., s.m = ..., *p = ...: an object in memory. */
static bool resolve_memory(struct dt_checker *ck, struct dt_node *n, struct dt_type value)
{
	if (!dt_check_object(ck, n))
		return false;
	if (n->kind == DT_N_MEMBER) {
		dt_error(ck->ctx, n->loc, D_OP_WRITE, "curthread->%s is read-only", n->str);
		return false;
	}
	return dt_check_store_target(ck, n, "=") && memory_value_ok(ck, n, value);
}

bool dt_resolve_lvalue(struct dt_checker *ck, struct dt_node *n, struct dt_type value)
{
	switch (n->kind) {
	case DT_N_IDENT:
	case DT_N_VAR: {
		enum dt_scope scope = n->kind == DT_N_IDENT ? DT_SCOPE_GLOBAL : n->scope;
		if (scope == DT_SCOPE_GLOBAL && (dt_builtin_lookup(n->str) ||
		    !strcmp(n->str, "NULL") || dt_inline_lookup(ck->ctx, n->str))) {
			dt_error(ck->ctx, n->loc, D_OP_WRITE, "operand of = must be a writable "
				 "variable: %s is %s", n->str, dt_inline_lookup(ck->ctx, n->str) ?
				 "an inline" : "built in");
			return false;
		}
		struct dt_var *v = var_lookup(ck, scope, n->str);
		if (!v && scope == DT_SCOPE_GLOBAL && is_reserved(n->str)) {
			unknown_ident(ck, n);
			return false;
		}
		if (v && v->is_array) {
			dt_error(ck->ctx, n->loc, D_ARR_BADREF, "%s%s is an associative array: "
				 "assign an element, e.g. %s%s[key] = ...", scope_prefix[scope],
				 n->str, scope_prefix[scope], n->str);
			return false;
		}
		if (v && dt_var_by_reference(v)) {
			dt_error(ck->ctx, n->loc, D_OP_LVAL, "%s%s is %s: assign its members or "
				 "elements, or fill it with bcopy( )", scope_prefix[scope], n->str,
				 dt_type_str(ck->ctx, v->type));
			return false;
		}
		if (v && !assignable(ck, n->loc, v, value))
			return false;
		if (!v)
			v = var_new(ck, scope, n->str, value, n->loc);
		resolve_to_var(n, v);
		return true;
	}
	case DT_N_INDEX:
		if (!dt_resolve_array(ck, n, &value))
			return false;
		return !dt_is_memory_object(n) || memory_value_ok(ck, n, value);
	case DT_N_MEMBER:
	case DT_N_DOT:
	case DT_N_FIELD:
	case DT_N_UNARY:
		return resolve_memory(ck, n, value);
	case DT_N_AGGNAME:
		dt_error(ck->ctx, n->loc, D_AGG_USE, "@%s can only be assigned in a statement of "
			 "its own: @%s[keys] = func(args);", n->str, n->str);
		return false;
	default:
		dt_error(ck->ctx, n->loc, D_OP_LVAL, "operand of = must be a variable, an "
			 "associative array element or an object in memory");
		return false;
	}
}

/* An operand of ++, -- or op=: an existing writable integer variable, or an integer in memory. */
bool dt_check_modifiable(struct dt_checker *ck, struct dt_node *n, const char *op)
{
	if (n->kind == DT_N_IDENT && dt_builtin_lookup(n->str)) {
		dt_error(ck->ctx, n->loc, D_OP_WRITE, "operand of %s must be a writable variable: "
			 "%s is built in", op, n->str);
		return false;
	}
	if (n->kind == DT_N_MEMBER || n->kind == DT_N_DOT || n->kind == DT_N_FIELD ||
	    (n->kind == DT_N_UNARY && n->op == DT_OP_DEREF)) {
		if (!dt_check_object(ck, n))
			return false;
		if (n->kind == DT_N_MEMBER) {
			dt_error(ck->ctx, n->loc, D_OP_WRITE, "operand of %s must be writable: "
				 "curthread->%s is read-only", op, n->str);
			return false;
		}
		if (!dt_check_store_target(ck, n, op))
			return false;
		goto integer;
	}
	if (n->kind != DT_N_IDENT && n->kind != DT_N_VAR && n->kind != DT_N_INDEX) {
		dt_error(ck->ctx, n->loc, D_OP_LVAL, "operand of %s must be a variable, an "
			 "associative array element or an object in memory", op);
		return false;
	}
	/*
	 * As dtrace (dt_cook_op1, dt_cook_op2): ++, -- and op= make a global
	 * or global associative array that does not exist yet, an int64,
	 * so that `n++` and `@`-less counters like `n[probefunc]++` work.
	 */
	const struct dt_node *name = n->kind == DT_N_INDEX ? n->left : n;
	if (name->kind == DT_N_IDENT && !var_lookup(ck, DT_SCOPE_GLOBAL, name->str) &&
	    !is_reserved(name->str)) {
		if (!(n->kind == DT_N_INDEX ? dt_resolve_array(ck, n, &dt_type_int64) :
		      dt_resolve_lvalue(ck, n, dt_type_int64)))
			return false;
	} else if (!dt_check_expr(ck, n)) {
		return false;
	}
	if (n->kind != DT_N_VAR && n->kind != DT_N_ARRAY && !dt_check_store_target(ck, n, op))
		return false;	/* p[i] is *(p + i) */
integer:
	if (!dt_type_is_int(n->type)) {
		dt_error(ck->ctx, n->loc, D_OP_ARITH, "operand of %s must be an integer, not %s",
			 op, dt_type_str(ck->ctx, n->type));
		return false;
	}
	return true;
}

void dt_apply_declaration(struct dt_checker *ck, const struct dt_decl *d)
{
	const char *pre = scope_prefix[d->scope];

	if (d->scope == DT_SCOPE_GLOBAL && is_reserved(d->name)) {
		dt_error(ck->ctx, d->loc, D_DECL_IDRED, "cannot declare %s: it names a built-in %s",
			 d->name, dt_func_lookup(d->name) || dt_func_refusal(d->name) ? "function" :
			 "variable");
		return;
	}
	struct dt_var *v = var_lookup(ck, d->scope, d->name);
	if (v) {
		bool same = v->is_array == d->is_array && v->nkeys == d->nkeys &&
			    dt_type_equal(v->type, d->type);
		for (int i = 0; same && i < d->nkeys; i++)
			same = dt_type_equal(v->keys[i], d->keys[i]);
		if (!same)
			dt_error(ck->ctx, d->loc, D_DECL_IDRED, "%s%s redeclared with a different type "
				 "(first %s at line %d)", pre, d->name, v->declared ? "declared" :
				 "assigned", v->loc.line);
		return;
	}
	if (d->type.kind == DT_TYPE_SOU || d->type.kind == DT_TYPE_ARRAY) {
		if (d->type.size == 0) {
			dt_error(ck->ctx, d->loc, D_DECL_INCOMPLETE, "%s%s: %s is incomplete", pre,
				 d->name, dt_type_str(ck->ctx, d->type));
			return;
		}
		if (d->type.size > DIF_BYREF_MAX) {
			dt_error(ck->ctx, d->loc, D_DECL_ARRBIG, "%s%s: %s is %u bytes (a variable "
				 "holds at most %d)", pre, d->name, dt_type_str(ck->ctx, d->type),
				 d->type.size, DIF_BYREF_MAX);
			return;
		}
	}
	v = var_new(ck, d->scope, d->name, d->type, d->loc);
	v->declared = true;
	v->is_array = d->is_array;
	v->nkeys = d->nkeys;
	memcpy(v->keys, d->keys, sizeof(v->keys));
}
