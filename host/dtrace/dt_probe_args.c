// SPDX-License-Identifier: BSD-2-Clause
/*
 * Typed args[]: the C types of a probe's arguments, from the kernel's
 * CTF, as dtrace types args[] from its CTF.
 *
 * - fbt: args[N] at a function's entry is its parameter N; at its
 *   return, args[0] is the return site's offset in the function and
 *   args[1] the value returned.
 * - a statically defined probe (sdt, sched, lockstat, proc, io, ...):
 *   args[N] is parameter N of the prototype the kernel declares for it
 *   in scion/sdt_types.h, sdt_types__<provider>__<name> (each '-' of the
 *   name written "__", as the site names it), which the kernel's build
 *   keeps in its CTF.
 * - any other probe has no argument types.
 *
 * A clause using args[] must name probes that share one set of types:
 * one function's entry, or its return (fbt); one probe name of one
 * provider (the others: a probe's sites in several functions share its
 * types). `scion trace -l -v` lists the same types (dt_program_probe_args).
 */
#include <stdio.h>
#include <string.h>
#include "dt_impl.h"

#define ARG_REGISTERS 6		/* args[] past these are not in registers */

static bool has_glob(const char *s)
{
	return strpbrk(s, "*?[") != NULL;
}

/* sdt_types__provider__name, the function whose parameters type the probe. */
static void sdt_types_function(const char *provider, const char *name, char *out,
			       size_t size)
{
	size_t n = (size_t)snprintf(out, size, "sdt_types__%s__", provider);
	for (const char *c = name; *c && n + 2 < size; c++) {
		if (*c == '-')
			out[n++] = '_';
		out[n++] = *c == '-' ? '_' : *c;
	}
	out[n < size ? n : size - 1] = '\0';
}

/*
 * The types of args[0..] of provider's probe function:name into
 * types[max]. Returns how many it has (0: none), or -1 when the kernel's
 * types say nothing of it.
 */
static int probe_types(struct dt_ctx *ctx, const char *provider, const char *function,
		       const char *name, struct dt_type *types, int max)
{
	struct dt_type ret, params[DT_MAX_ARGS];
	int n;
	if (strcmp(provider, "fbt")) {
		char fn[160];
		sdt_types_function(provider, name, fn, sizeof(fn));
		n = dt_ctf_function(ctx, fn, &ret, params, DT_MAX_ARGS);
	} else {
		bool entry = !strcmp(name, "entry");
		if (!entry && strcmp(name, "return"))
			return -1;
		n = dt_ctf_function(ctx, function, &ret, params, DT_MAX_ARGS);
		if (n >= 0 && !entry) {
			params[0] = dt_type_int32;	/* the return site's offset */
			params[1] = ret;
			n = ret.kind == DT_TYPE_VOID ? 1 : 2;
		}
	}
	if (n < 0)
		return -1;
	n = n < ARG_REGISTERS ? n : ARG_REGISTERS;
	n = n < max ? n : max;
	memcpy(types, params, (size_t)n * sizeof(*types));
	return n;
}

/* Do the clause's descriptions share one set of argument types? If not, say so. */
static bool one_probe(struct dt_checker *ck, struct dt_node *n)
{
	const struct dt_probedesc *first = ck->clause->probes;
	bool fbt = !strcmp(first->provider, "fbt");
	for (const struct dt_probedesc *d = first; d; d = d->next) {
		if (fbt && (strcmp(d->provider, "fbt") || has_glob(d->function) || !*d->function ||
			    strcmp(d->function, first->function) || strcmp(d->name, first->name) ||
			    (strcmp(d->name, "entry") && strcmp(d->name, "return")))) {
			dt_error(ck->ctx, n->loc, D_ARGS_MULTI, "args[ ] needs the clause's probes "
				 "to be one function's entry or return (%s has no single prototype)",
				 d->text);
			return false;
		}
		if (!fbt && (has_glob(d->provider) || !*d->provider || has_glob(d->name) ||
			     !*d->name || strcmp(d->provider, first->provider) ||
			     strcmp(d->name, first->name))) {
			dt_error(ck->ctx, n->loc, D_ARGS_MULTI, "args[ ] needs the clause's probes "
				 "to be one probe name of one provider (%s has no single set of "
				 "argument types)", d->text);
			return false;
		}
	}
	return true;
}

/* args[idx]'s type into *t, or false after saying why there is none. */
static bool arg_type(struct dt_checker *ck, struct dt_node *n, int64_t idx, struct dt_type *t)
{
	struct dt_ctx *ctx = ck->ctx;
	const struct dt_probedesc *d = ck->clause->probes;
	bool fbt = !strcmp(d->provider, "fbt");
	if (!one_probe(ck, n))
		return false;
	struct dt_type types[ARG_REGISTERS];
	int count = probe_types(ctx, d->provider, d->function, d->name, types, ARG_REGISTERS);
	if (count < 0 && fbt) {
		dt_error(ctx, n->loc, D_ARGS_NONE, "no type information for function %s: use "
			 "arg0..arg9", d->function);
		return false;
	}
	if (count < 0) {
		dt_error(ctx, n->loc, D_ARGS_NONE, "args[ ] is available for fbt probes and the "
			 "kernel's statically defined probes (%s:::%s has no argument types): use "
			 "arg0..arg9", d->provider, d->name);
		return false;
	}
	if (idx < 0 || idx >= count) {
		if (fbt)
			dt_error(ctx, n->args->loc, D_ARGS_IDX, "index %lld is out of range for "
				 "fbt::%s:%s args[ ]", (long long)idx, d->function, d->name);
		else
			dt_error(ctx, n->args->loc, D_ARGS_IDX, "index %lld is out of range for "
				 "%s:::%s args[ ] (it has %d argument%s)", (long long)idx, d->provider,
				 d->name, count, count == 1 ? "" : "s");
		return false;
	}
	*t = types[idx];
	return true;
}

bool dt_check_args(struct dt_checker *ck, struct dt_node *n)
{
	struct dt_ctx *ctx = ck->ctx;
	const struct dt_probedesc *first = ck->clause ? ck->clause->probes : NULL;
	if (n->nargs != 1 || !dt_check_expr(ck, n->args) || n->args->kind != DT_N_INT ||
	    !dt_type_is_int(n->args->type)) {
		if (!ctx->stopped)
			dt_error(ctx, n->loc, D_ARGS_IDX, "args[ ] needs one integer constant index");
		return false;
	}
	int64_t idx = (int64_t)n->args->value;
	if (!first) {
		dt_error(ctx, n->loc, D_ARGS_NONE, "args[ ] is available in a probe clause only: "
			 "use arg0..arg9");
		return false;
	}
	if (!dt_ctf_has_kernel(ctx)) {
		dt_error(ctx, n->loc, D_ARGS_NONE, "args[ ] needs the kernel's types (scion trace "
			 "passes them; dtc -T kernel.ctf): use arg0..arg9");
		return false;
	}
	struct dt_type t;
	if (!arg_type(ck, n, idx, &t))
		return false;
	if (t.kind != DT_TYPE_INT && t.kind != DT_TYPE_PTR) {
		dt_error(ctx, n->loc, D_ARGS_TYPE, "args[%lld] of %s has type %s, which D cannot "
			 "read from a register", (long long)idx, first->text, dt_type_str(ctx, t));
		return false;
	}
	char name[24];
	snprintf(name, sizeof(name), "arg%lld", (long long)idx);
	struct dt_node *arg = dt_node_new(ctx, DT_N_BUILTIN, n->loc);
	arg->ref.builtin = dt_builtin_lookup(name);
	arg->str = arg->ref.builtin->name;
	arg->type = arg->ref.builtin->type;
	n->kind = DT_N_CAST;
	n->type = t;
	n->left = arg;
	n->args = NULL;
	n->nargs = 0;
	return true;
}

int dt_program_probe_args(struct dt_program *program, const char *probe, char types[][128],
			  int max)
{
	char part[4][128];
	const char *p = probe;
	for (int i = 0; i < 4; i++) {
		const char *end = i < 3 ? strchr(p, ':') : p + strlen(p);
		if (!end || (size_t)(end - p) >= sizeof(part[i]))
			return -1;
		memcpy(part[i], p, (size_t)(end - p));
		part[i][end - p] = '\0';
		p = end + (i < 3);
	}
	struct dt_ctx ctx = { .prog = program, .filename = program->filename };
	if (setjmp(ctx.nomem) || !dt_ctf_has_kernel(&ctx))
		return -1;
	struct dt_type t[ARG_REGISTERS];
	int n = probe_types(&ctx, part[0], part[2], part[3], t, max < ARG_REGISTERS ?
			    max : ARG_REGISTERS);
	for (int i = 0; i < n; i++)
		snprintf(types[i], sizeof(types[i]), "%s", dt_type_str(&ctx, t[i]));
	return n;
}
