// SPDX-License-Identifier: BSD-2-Clause
/*
 * libFuzzer target: the D compiler's front end (host/dtrace/) on
 * arbitrary source text. The first byte picks the mode (-n or a script),
 * how many macro arguments there are and whether the first line is also
 * tried as a -x option; the rest is the program. Checked: no crash, leak
 * or sanitizer report; the error count stays bounded and every error has
 * a message and a formattable line; a program without errors is fully
 * resolved (no parser-only node kinds, every expression typed) and dumps
 * the same text when compiled twice.
 */
#include <string.h>
#include "fuzz.h"
#include "../../host/dtrace/dtrace.h"

static const char *const macro_args[] = { "1", "bcache_read", "a b", "-5", "0x10", "" };

static void check_node(const struct dt_node *n, int depth)
{
	FUZZ_ASSERT(depth <= DT_MAX_DEPTH + 1, "AST deeper than the parser allows");
	FUZZ_ASSERT(n->kind != DT_N_IDENT && n->kind != DT_N_INDEX && n->kind != DT_N_AGGNAME,
		    "unresolved node kind %d in a checked program", n->kind);
	FUZZ_ASSERT(n->type.kind != DT_TYPE_VOID || n->kind == DT_N_AGGREF ||
		    (n->kind == DT_N_CALL && n->ref.func && n->ref.func->kind == DT_FK_SUBR &&
		     n->ref.func->result.kind == DT_TYPE_VOID),	/* bcopy(...); on its own */
		    "untyped node kind %d", n->kind);
	if (n->kind == DT_N_VAR || n->kind == DT_N_ARRAY)
		FUZZ_ASSERT(n->ref.var != NULL, "variable node without its variable");
	if (n->kind == DT_N_CALL)
		FUZZ_ASSERT(n->ref.func && (n->ref.func->kind == DT_FK_SUBR ||
					    (n->ref.func->id == DT_F_STACK &&
					     n->type.kind == DT_TYPE_STACK)),
			    "call of a non-subroutine (but stack() as a key)");
	const struct dt_node *kids[3] = { n->cond, n->left, n->right };
	for (int i = 0; i < 3; i++)
		if (kids[i])
			check_node(kids[i], depth + 1);
	for (const struct dt_node *a = n->args; a; a = a->next)
		check_node(a, depth + 1);
}

static void check_program(const struct dt_program *p)
{
	for (const struct dt_clause *c = p->clauses; c; c = c->next) {
		FUZZ_ASSERT(c->nprobes > 0, "clause without a probe description");
		if (c->predicate)
			check_node(c->predicate, 0);
		for (const struct dt_stmt *s = c->stmts; s; s = s->next) {
			if (s->expr)
				check_node(s->expr, 0);
			for (const struct dt_node *a = s->args; a; a = a->next)
				check_node(a, 0);
			for (const struct dt_node *k = s->keys; k; k = k->next)
				check_node(k, 0);
			if (s->kind == DT_S_AGG)
				FUZZ_ASSERT(s->agg && s->agg->defined && s->func->kind == DT_FK_AGG,
					    "aggregation statement not resolved");
		}
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	unsigned mode = data[0];
	const char *src = (const char *)data + 1;
	size_t len = size - 1;
	struct dt_options opts;
	struct dt_compile_args args = {
		.filename = "fuzz.d",
		.argc = (int)(mode >> 1) % 7,
		.argv = macro_args,
		.flags = mode & 1 ? DT_COMPILE_PROBESPEC : 0,
		.options = &opts,
	};

	dt_options_init(&opts);
	if (mode & 0x80) {
		/* The first line as "name=value", like -x. */
		const char *nl = memchr(src, '\n', len);
		size_t n = nl ? (size_t)(nl - src) : len;
		char line[128], err[200];
		if (n < sizeof(line)) {
			memcpy(line, src, n);
			line[n] = '\0';
			char *eq = strchr(line, '=');
			if (eq)
				*eq = '\0';
			int rc = dt_option_set(&opts, line, eq ? eq + 1 : NULL, err, sizeof(err));
			FUZZ_ASSERT(rc == 0 || err[0], "dt_option_set failed without a reason");
		}
	}

	struct dt_program *p = dt_compile_with(src, len, &args);
	if (!p)
		return 0;
	FUZZ_ASSERT(p->nerrors <= DT_MAX_ERRORS + 1, "%d errors", p->nerrors);
	for (int i = 0; i < p->nerrors; i++) {
		char buf[512];
		FUZZ_ASSERT(p->errors[i].message && p->errors[i].message[0], "empty error message");
		FUZZ_ASSERT(p->errors[i].loc.line >= 0, "negative line");
		int n = dt_error_format(&p->errors[i], DT_ERRFMT_TAGGED, buf, sizeof(buf));
		FUZZ_ASSERT(n > 0, "error does not format");
	}
	char *dump = dt_program_dump(p);
	FUZZ_ASSERT(dump != NULL, "dump failed");
	if (p->nerrors == 0) {
		check_program(p);
		struct dt_program *again = dt_compile_with(src, len, &args);
		char *dump2 = again ? dt_program_dump(again) : NULL;
		FUZZ_ASSERT(dump2 && !strcmp(dump, dump2), "two compilations dump differently");
		free(dump2);
		dt_program_free(again);
	}
	free(dump);
	dt_program_free(p);
	return 0;
}
