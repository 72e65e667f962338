// SPDX-License-Identifier: BSD-2-Clause
/*
 * Host tests of the D front end's API (host/dtrace/dtrace.h): the
 * options table and its units, error formats and limits, what a checked
 * AST gives a code generator (resolutions, ids, types, folded constants,
 * format conversions), macro arguments, -n mode, the preprocessor, and
 * the bounds that keep hostile input harmless.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "host_test.h"
#include "dt_impl.h"

static struct dt_program *compile(const char *src)
{
	return dt_compile(src, strlen(src), "t.d", 0, NULL, 0);
}

static const char *first_error(const struct dt_program *p)
{
	return p->nerrors ? dt_errtag_name(p->errors[0].tag) : "none";
}

HOST_TEST(d_tables_are_indexed_by_id)
{
	for (int i = 0; i < DT_BUILTIN_COUNT; i++)
		CHECK(t, dt_builtins[i].id == (enum dt_builtin_id)i, "dt_builtins[%d]", i);
	for (int i = 0; i < DT_MEMBER_COUNT; i++)
		CHECK(t, dt_thread_members[i].id == (enum dt_member_id)i, "dt_thread_members[%d]", i);
	for (int i = 0; i < DT_FUNC_COUNT; i++) {
		CHECK(t, dt_funcs[i].id == (enum dt_func_id)i, "dt_funcs[%d] (%s)", i, dt_funcs[i].name);
		CHECK(t, dt_funcs[i].min_args <= dt_funcs[i].max_args, "%s arity", dt_funcs[i].name);
		/* bcopy and copyinto are subroutines without one, as in dtrace. */
		bool is_void_subr = dt_funcs[i].id == DT_F_BCOPY || dt_funcs[i].id == DT_F_COPYINTO;
		CHECK(t, (dt_funcs[i].kind == DT_FK_SUBR && !is_void_subr) ==
		      (dt_funcs[i].result.kind != DT_TYPE_VOID),
		      "%s: subroutines and only they have values", dt_funcs[i].name);
	}
	for (int i = 0; i < DT_OPTION_COUNT; i++)
		CHECK(t, dt_options_table[i].id == (enum dt_option_id)i, "dt_options_table[%d]", i);
	for (int i = 0; i < DT_ERRTAG_COUNT; i++) {
		const char *name = dt_errtag_name((enum dt_errtag)i);
		CHECK(t, !strncmp(name, "D_", 2), "tag %d has a name (%s)", i, name);
		for (int j = 0; j < i; j++)
			CHECK(t, strcmp(name, dt_errtag_name((enum dt_errtag)j)), "tags %d and %d", i, j);
	}
}

HOST_TEST(d_options_values_and_units)
{
	struct dt_options o;
	char err[200];
	static const struct {
		const char *name, *value;
		uint64_t want;
	} good[] = {
		{ "bufsize", "4m", 4u << 20 }, { "bufsize", "4M", 4u << 20 },
		{ "bufsize", "512", 512 }, { "bufsize", "2k", 2048 }, { "aggsize", "1g", 1u << 30 },
		{ "bufsize", "0x100", 256 }, { "switchrate", "10hz", 100000000 },
		{ "switchrate", "10Hz", 100000000 }, { "switchrate", "250ms", 250000000 },
		{ "switchrate", "1s", 1000000000 }, { "switchrate", "5us", 5000 },
		{ "switchrate", "7ns", 7 }, { "switchrate", "123", 123 },
		{ "statusrate", "1m", 60000000000ull }, { "cleanrate", "1h", 3600000000000ull },
		{ "aggrate", "1d", 86400000000000ull }, { "nspec", "16", 16 },
		{ "bufpolicy", "fill", DT_BUFPOLICY_FILL }, { "bufresize", "manual", DT_BUFRESIZE_MANUAL },
		{ "quiet", NULL, 1 }, { "quiet", "0", 0 }, { "quiet", "1", 1 },
		{ "strsize", "1k", 1024 },
	};
	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		dt_options_init(&o);
		int rc = dt_option_set(&o, good[i].name, good[i].value, err, sizeof(err));
		const struct dt_option_desc *d = dt_option_lookup(good[i].name);
		CHECK(t, rc == 0, "%s=%s: %s", good[i].name, good[i].value, err);
		CHECK(t, d && o.set[d->id] && dt_option_get(&o, d->id) == good[i].want,
		      "%s=%s gives %llu", good[i].name, good[i].value,
		      d ? (unsigned long long)dt_option_get(&o, d->id) : 0ull);
	}
	static const struct {
		const char *name, *value, *why;
	} bad[] = {
		{ "nosuch", "1", "unknown option 'nosuch'" },
		{ "bufsize", NULL, "needs a value" }, { "bufsize", "", "bad value" },
		{ "bufsize", "4q", "bad value" }, { "bufsize", "4mb", "bad value" },
		{ "bufsize", "1t", "out of range" }, { "bufsize", "0", "out of range" },
		{ "bufsize", "99999999999999999999", "bad value" },
		{ "bufsize", "17179869184g", "bad value" },
		{ "switchrate", "0hz", "bad value" }, { "switchrate", "10 hz", "bad value" },
		{ "switchrate", "2000000000hz", "bad value" },
		{ "switchrate", "99999999999d", "bad value" },
		{ "quiet", "yes", "bad value" }, { "nspec", "-1", "bad value" },
		{ "nspec", "0", "out of range" }, { "bufpolicy", "always", "switch, fill or ring" },
		{ "bufpolicy", NULL, "needs a value" },
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		dt_options_init(&o);
		err[0] = '\0';
		int rc = dt_option_set(&o, bad[i].name, bad[i].value, err, sizeof(err));
		CHECK(t, rc == -1 && strstr(err, bad[i].why), "%s=%s: rc %d, \"%s\"", bad[i].name,
		      bad[i].value ? bad[i].value : "(none)", rc, err);
		for (int k = 0; k < DT_OPTION_COUNT; k++)
			CHECK(t, !o.set[k], "%s=%s changed option %d", bad[i].name, bad[i].value, k);
	}
	dt_options_init(&o);
	CHECK(t, dt_option_get(&o, DT_OPT_BUFSIZE) == 4u << 20 && !o.set[DT_OPT_BUFSIZE],
	      "defaults are readable and not set");
	CHECK(t, dt_option_get(&o, DT_OPT_SWITCHRATE) == 1000000000, "switchrate defaults to 1s");
}

HOST_TEST(d_error_formats)
{
	struct dt_program *p = compile("BEGIN\n{\n\ttrace(y);\n}\n");
	REQUIRE(t, p && p->nerrors == 1, "one error");
	char buf[256];
	dt_error_format(&p->errors[0], DT_ERRFMT_DTRACE, buf, sizeof(buf));
	CHECK(t, !strcmp(buf, "dtrace: failed to compile script t.d: line 3: failed to resolve "
			 "y: unknown variable name (assign or declare it before this use)"), "%s", buf);
	dt_error_format(&p->errors[0], DT_ERRFMT_TAGGED, buf, sizeof(buf));
	CHECK(t, !strncmp(buf, "t.d:3:8: D_IDENT_UNDEF: failed to resolve y", 43), "%s", buf);
	int need = dt_error_format(&p->errors[0], DT_ERRFMT_TAGGED, buf, 10);
	CHECK(t, need > 10 && strlen(buf) == 9, "truncates like snprintf");
	struct dt_error noline = { D_PREPROC, { "x.d", 0, 0 }, "cpp is missing" };
	dt_error_format(&noline, DT_ERRFMT_DTRACE, buf, sizeof(buf));
	CHECK(t, !strcmp(buf, "dtrace: failed to compile script x.d: cpp is missing"), "%s", buf);
	dt_program_free(p);
	CHECK(t, !strcmp(dt_errtag_name((enum dt_errtag)-1), "D_UNKNOWN"), "out of range tag");
}

HOST_TEST(d_error_limit)
{
	char src[8192];
	int n = snprintf(src, sizeof(src), "BEGIN\n{\n");
	for (int i = 0; i < 50; i++)
		n += snprintf(src + n, sizeof(src) - (size_t)n, "\ttrace(u%d);\n", i);
	snprintf(src + n, sizeof(src) - (size_t)n, "}\n");
	struct dt_program *p = compile(src);
	CHECK(t, p->nerrors == DT_MAX_ERRORS + 1, "%d errors", p->nerrors);
	CHECK(t, p->errors[DT_MAX_ERRORS].tag == D_TOO_MANY, "the last says why it stopped");
	dt_program_free(p);

	/* Lexical garbage stops too (the lexer winds down). */
	memset(src, 1, sizeof(src) - 1);
	src[sizeof(src) - 1] = '\0';
	p = compile(src);
	CHECK(t, p->nerrors == DT_MAX_ERRORS + 1, "%d errors for garbage", p->nerrors);
	dt_program_free(p);
}

HOST_TEST(d_ast_for_code_generators)
{
	const char *src =
		"self uint32_t n;\n"
		"fbt::bcache_read:entry /self->n < 10/ {\n"
		"  self->ts = timestamp; x = 1; this->k = execname;\n"
		"  @c[this->k, cpu] = count(); @l = lquantize(arg0, -4, 4, 2);\n"
		"  printf(\"%s %5d %*x\\n\", execname, cpu, 8, arg0);\n"
		"}\n"
		"END { printa(\"%-8s %d %@u\\n\", @c); }\n";
	struct dt_program *p = compile(src);
	REQUIRE(t, p->nerrors == 0, "compiles: %s", p->nerrors ? p->errors[0].message : "");
	CHECK(t, p->nclauses == 2 && p->nvars[DT_SCOPE_THREAD] == 2 &&
	      p->nvars[DT_SCOPE_GLOBAL] == 1 && p->nvars[DT_SCOPE_CLAUSE] == 1 && p->naggs == 2,
	      "counts: %d clauses, vars %d/%d/%d, %d aggs", p->nclauses, p->nvars[0], p->nvars[1],
	      p->nvars[2], p->naggs);

	struct dt_clause *c = p->clauses;
	REQUIRE(t, c->predicate && c->predicate->kind == DT_N_BINARY && c->predicate->op == DT_OP_LT,
		"predicate is <");
	struct dt_node *n = c->predicate->left;
	CHECK(t, n->kind == DT_N_VAR && n->scope == DT_SCOPE_THREAD && n->ref.var->id == 0 &&
	      n->ref.var->declared && n->type.size == 4 && !n->type.is_signed, "self->n resolved");

	struct dt_stmt *s = c->stmts;
	REQUIRE(t, s && s->kind == DT_S_EXPR && s->expr->kind == DT_N_ASSIGN, "assignment");
	CHECK(t, s->expr->right->kind == DT_N_BUILTIN &&
	      s->expr->right->ref.builtin == &dt_builtins[DT_BV_TIMESTAMP], "timestamp builtin");
	CHECK(t, s->expr->left->ref.var->id == 1 && !s->expr->left->ref.var->declared &&
	      s->expr->left->type.kind == DT_TYPE_INT && s->expr->left->type.size == 8,
	      "self->ts implicit, second thread-local, uint64");

	s = s->next->next->next;	/* x = 1; this->k = ...; then the aggregation */
	REQUIRE(t, s->kind == DT_S_AGG && s->func == &dt_funcs[DT_F_COUNT] && s->nkeys == 2 &&
		s->agg->id == 0, "@c aggregation");
	CHECK(t, s->keys->kind == DT_N_VAR && s->keys->scope == DT_SCOPE_CLAUSE &&
	      s->keys->type.kind == DT_TYPE_STRING, "first key this->k (string)");
	s = s->next;
	REQUIRE(t, s->kind == DT_S_AGG && s->func->id == DT_F_LQUANTIZE, "lquantize");
	CHECK(t, s->agg->lq_low == -4 && s->agg->lq_high == 4 && s->agg->lq_step == 2,
	      "lquantize bounds %lld %lld %lld", (long long)s->agg->lq_low,
	      (long long)s->agg->lq_high, (long long)s->agg->lq_step);
	CHECK(t, s->args->next->kind == DT_N_INT && (int64_t)s->args->next->value == -4,
	      "-4 folded into a constant");

	s = s->next;
	REQUIRE(t, s->kind == DT_S_ACTION && s->func->id == DT_F_PRINTF && s->format &&
		s->format->nconv == 3, "printf with 3 conversions");
	CHECK(t, s->format->convs[0].conv == 's' && s->format->convs[0].arg == 1, "%%s is arg 1");
	CHECK(t, s->format->convs[1].conv == 'd' && s->format->convs[1].arg == 2 &&
	      s->format->convs[1].length == 3, "%%5d is arg 2, 3 bytes long");
	CHECK(t, s->format->convs[2].star_width && s->format->convs[2].arg == 4,
	      "%%*x takes arg 3 as its width and prints arg 4");

	s = c->next->stmts;
	REQUIRE(t, s->kind == DT_S_ACTION && s->func->id == DT_F_PRINTA && s->format, "printa");
	CHECK(t, s->format->convs[0].arg == 0 && s->format->convs[1].arg == 1 &&
	      s->format->convs[2].agg_value && s->format->convs[2].arg == 0,
	      "printa conversions: key 0, key 1, value of aggregation 0");
	CHECK(t, s->args->next->kind == DT_N_AGGREF && s->args->next->ref.agg == p->aggs,
	      "printa's aggregation is @c");
	dt_program_free(p);
}

HOST_TEST(d_dump_is_deterministic)
{
	const char *src = "int a[string]; BEGIN { a[\"x\"] = 1; @s[probefunc] = sum(a[\"x\"]); }";
	struct dt_program *p1 = compile(src), *p2 = compile(src);
	char *d1 = dt_program_dump(p1), *d2 = dt_program_dump(p2);
	REQUIRE(t, d1 && d2, "dumps");
	CHECK(t, !strcmp(d1, d2), "same text twice");
	CHECK(t, strstr(d1, "(var global a int32 #0 declared (keys string))") != NULL, "%s", d1);
	free(d1);
	free(d2);
	dt_program_free(p1);
	dt_program_free(p2);

	p1 = compile("BEGIN { nope(); }");
	d1 = dt_program_dump(p1);
	CHECK(t, d1 && !strcmp(d1, "(program-with-errors 1)\n"), "a program with errors: %s", d1);
	free(d1);
	dt_program_free(p1);
	dt_program_free(NULL);
}

HOST_TEST(d_macro_arguments)
{
	const char *argv[] = { "42", "bcache_read", "two words" };
	const char *src = "fbt::$2:entry /arg0 == $1/ { trace($$3); }";
	struct dt_program *p = dt_compile(src, strlen(src), "m.d", 3, argv, 0);
	REQUIRE(t, p->nerrors == 0, "compiles: %s", first_error(p));
	CHECK(t, !strcmp(p->clauses->probes->function, "bcache_read"), "$2 in the description");
	CHECK(t, p->clauses->predicate->right->value == 42, "$1 is 42");
	CHECK(t, !strcmp(p->clauses->stmts->args->str, "two words"), "$$3 is the string");
	dt_program_free(p);

	p = dt_compile("BEGIN { trace($1); }", 20, "m.d", 3, argv, 0);
	CHECK(t, p->nerrors == 1 && p->errors[0].tag == D_MACRO_UNUSED &&
	      strstr(p->errors[0].message, "$2"), "unused $2: %s", first_error(p));
	dt_program_free(p);

	p = dt_compile("BEGIN { trace($4); }", 20, "m.d", 3, argv, 0);
	CHECK(t, p->errors[0].tag == D_MACRO_UNDEF, "$4 undefined: %s", first_error(p));
	dt_program_free(p);

	struct dt_options o;
	char err[100];
	dt_options_init(&o);
	dt_option_set(&o, "defaultargs", NULL, err, sizeof(err));
	struct dt_compile_args args = { .filename = "m.d", .options = &o };
	p = dt_compile_with("BEGIN { trace($4 + 1); trace($$4); }", 36, &args);
	CHECK(t, p->nerrors == 0, "defaultargs via -x: %s", first_error(p));
	CHECK(t, p->nerrors || p->options.set[DT_OPT_DEFAULTARGS], "-x options stay in the program");
	dt_program_free(p);
}

HOST_TEST(d_probespec_mode)
{
	struct dt_program *p = dt_compile("BEGIN", 5, "-n", 0, NULL, DT_COMPILE_PROBESPEC);
	CHECK(t, p->nerrors == 0 && p->clauses->default_action && p->clauses->nstmts == 0,
	      "-n BEGIN: one clause with the default action");
	dt_program_free(p);
	p = dt_compile("BEGIN", 5, "x.d", 0, NULL, 0);
	CHECK(t, p->nerrors == 1 && p->errors[0].tag == D_SYNTAX, "a script needs { }");
	dt_program_free(p);
	p = dt_compile("a,b,c:d /1/", 11, "-n", 0, NULL, DT_COMPILE_PROBESPEC);
	CHECK(t, p->nerrors == 0 && p->clauses->nprobes == 3 && p->clauses->predicate,
	      "-n with three descriptions and a predicate: %s", first_error(p));
	CHECK(t, p->nerrors || !strcmp(p->clauses->probes->next->next->function, "c"),
	      "c:d is function:name");
	dt_program_free(p);
}

HOST_TEST(d_hostile_input_is_bounded)
{
	/* NUL bytes, and a length shorter than the string. */
	struct dt_program *p = dt_compile("BEGIN { }\0garbage", 17, "t.d", 0, NULL, 0);
	CHECK(t, p->nerrors == 1 && p->errors[0].tag == D_SYNTAX, "NUL is an invalid character");
	dt_program_free(p);
	p = dt_compile("BEGIN { } not part of it", 9, "t.d", 0, NULL, 0);
	CHECK(t, p->nerrors == 0, "only length bytes are read");
	dt_program_free(p);
	p = dt_compile(NULL, 0, NULL, 0, NULL, 0);
	CHECK(t, p->nerrors == 1 && p->errors[0].tag == D_EMPTY, "no source at all");
	dt_program_free(p);

	/* Nesting: parentheses and unary operators recurse, long chains nest nodes. */
	size_t big = 64 * 1024;
	char *src = malloc(big);
	for (int depth = 200; depth <= 300; depth += 100) {
		int n = sprintf(src, "BEGIN { trace(");
		for (int i = 0; i < depth; i++)
			src[n++] = '(';
		src[n++] = '1';
		for (int i = 0; i < depth; i++)
			src[n++] = ')';
		n += sprintf(src + n, "); }");
		p = dt_compile(src, (size_t)n, "t.d", 0, NULL, 0);
		if (depth == 200)
			CHECK(t, p->nerrors == 0, "200 parentheses: %s", first_error(p));
		else
			CHECK(t, p->nerrors == 1 && p->errors[0].tag == D_NESTING, "300: %s",
			      first_error(p));
		dt_program_free(p);
	}
	int n = sprintf(src, "BEGIN { x = 1; trace(x");
	for (int i = 0; i < 5000; i++)
		n += sprintf(src + n, "+x");
	n += sprintf(src + n, "); }");
	p = dt_compile(src, (size_t)n, "t.d", 0, NULL, 0);
	CHECK(t, p->nerrors == 1 && p->errors[0].tag == D_NESTING, "5000-term sum: %s",
	      first_error(p));
	dt_program_free(p);
	n = sprintf(src, "BEGIN { trace(");
	for (int i = 0; i < 3000; i++)
		n += sprintf(src + n, "1?");
	n += sprintf(src + n, "1");
	for (int i = 0; i < 3000; i++)
		n += sprintf(src + n, ":1");
	n += sprintf(src + n, "); }");
	p = dt_compile(src, (size_t)n, "t.d", 0, NULL, 0);
	CHECK(t, p->nerrors == 1 && p->errors[0].tag == D_NESTING, "3000 nested ?: %s",
	      first_error(p));
	dt_program_free(p);
	n = sprintf(src, "BEGIN { trace(");
	for (int i = 0; i < 20000; i++)
		src[n++] = '-';
	n += sprintf(src + n, "1); }");
	p = dt_compile(src, (size_t)n, "t.d", 0, NULL, 0);
	CHECK(t, p->nerrors == 1 && p->errors[0].tag == D_NESTING, "20000 minus signs: %s",
	      first_error(p));
	dt_program_free(p);
	free(src);
}

HOST_TEST(d_preprocessor)
{
	const char *src = "#define N 3\n#pragma D option quiet\nBEGIN\n{\n\ttrace(N * 2);\n"
			  "\ttrace(nope);\n}\n";
	struct dt_compile_args args = { .filename = "pp.d", .flags = DT_COMPILE_CPP };
	bool have_cpp = system("command -v cpp >/dev/null 2>&1") == 0;

	if (have_cpp) {
		struct dt_program *p = dt_compile_with(src, strlen(src), &args);
		REQUIRE(t, p->nerrors == 1, "%d errors: %s", p->nerrors, first_error(p));
		CHECK(t, p->errors[0].tag == D_IDENT_UNDEF && !strcmp(p->errors[0].loc.file, "pp.d") &&
		      p->errors[0].loc.line == 6, "the error names pp.d line 6: %s:%d",
		      p->errors[0].loc.file, p->errors[0].loc.line);
		CHECK(t, p->options.set[DT_OPT_QUIET], "#pragma D option survives cpp");
		dt_program_free(p);

		src = "#define N 3\nBEGIN { trace(N); }\n";
		p = dt_compile_with(src, strlen(src), &args);
		CHECK(t, p->nerrors == 0 && p->clauses->stmts->args->value == 3, "N expanded");
		dt_program_free(p);
	} else {
		printf("  d_preprocessor: no cpp on this machine; only its absence is tested\n");
	}
	args.cpp = "/nonexistent/scion-cpp";
	struct dt_program *p = dt_compile_with(src, strlen(src), &args);
	CHECK(t, p->nerrors == 1 && p->errors[0].tag == D_PREPROC &&
	      strstr(p->errors[0].message, "/nonexistent/scion-cpp") &&
	      strstr(p->errors[0].message, "without -C"), "missing cpp: %s",
	      p->nerrors ? p->errors[0].message : "no error");
	dt_program_free(p);
}

HOST_TEST(d_type_rules)
{
	struct dt_type i8 = { .kind = DT_TYPE_INT, .size = 1, .is_signed = true };
	struct dt_type u8 = { .kind = DT_TYPE_INT, .size = 1 };
	struct dt_type u32 = { .kind = DT_TYPE_INT, .size = 4 };

	CHECK(t, dt_type_normalize(i8, 200) == (uint64_t)-56, "int8 200 is -56");
	CHECK(t, dt_type_normalize(u8, 300) == 44, "uint8 300 is 44");
	CHECK(t, dt_type_normalize(u32, (uint64_t)-1) == 0xffffffffu, "uint32 -1");
	CHECK(t, dt_type_normalize(dt_type_int64, 5) == 5, "int64 unchanged");
	/* dtrace's promotion: the wider type, at equal width the unsigned one. */
	struct dt_type i32 = dt_type_int32, ll = { .kind = DT_TYPE_INT, .size = 8,
						  .is_signed = true, .is_llong = true };
	CHECK(t, dt_type_promote(u32, dt_type_int64).is_signed, "uint32 + int64 is int64");
	CHECK(t, !dt_type_promote(dt_type_uint64, i8).is_signed, "uint64 + int8 is uint64");
	CHECK(t, dt_type_promote(u8, u8).size == 1, "uint8 + uint8 stays uint8 (no int promotion)");
	CHECK(t, dt_type_promote(i8, u8).size == 1 && !dt_type_promote(i8, u8).is_signed,
	      "int8 + uint8 is uint8");
	struct dt_type r = dt_type_promote(i32, u32);
	CHECK(t, r.size == 4 && !r.is_signed, "int + unsigned int is unsigned int");
	CHECK(t, dt_type_promote(dt_type_int64, ll).is_llong && dt_type_promote(ll,
	      dt_type_int64).is_llong, "long + long long is long long");
	CHECK(t, dt_type_promote(dt_type_int64, dt_type_int64).tdef == dt_type_int64.tdef,
	      "int64_t + int64_t keeps its typedef");
	CHECK(t, !dt_type_promote(dt_funcs[DT_F_FUNC].result, i32).sym, "func() + 1 is no symbol");

	char buf[16];
	CHECK(t, !strcmp(dt_type_name(u32, buf, sizeof(buf)), "uint32"), "uint32");
	CHECK(t, !strcmp(dt_type_name(dt_funcs[DT_F_FUNC].result, buf, sizeof(buf)), "func"),
	      "func()'s result prints as a symbol");
}

HOST_TEST(d_many_names)
{
	/* Thousands of variables and aggregations: the symbol table grows and finds them all. */
	size_t cap = 256 * 1024, n = 0;
	char *src = malloc(cap);
	n += (size_t)snprintf(src + n, cap - n, "BEGIN {\n");
	for (int i = 0; i < 3000; i++)
		n += (size_t)snprintf(src + n, cap - n, " v%d = %d; self->t%d = v%d; @a%d = sum(v%d);\n",
				      i, i, i, i, i, i);
	n += (size_t)snprintf(src + n, cap - n, "}\nEND { trace(v2999 + self->t0); printa(@a1234); }\n");
	struct dt_program *p = dt_compile(src, n, "t.d", 0, NULL, 0);
	REQUIRE(t, p->nerrors == 0, "compiles: %s", first_error(p));
	CHECK(t, p->nvars[DT_SCOPE_GLOBAL] == 3000 && p->nvars[DT_SCOPE_THREAD] == 3000 &&
	      p->naggs == 3000, "%d globals, %d thread-locals, %d aggregations",
	      p->nvars[DT_SCOPE_GLOBAL], p->nvars[DT_SCOPE_THREAD], p->naggs);
	const struct dt_stmt *s = p->clauses->next->stmts;
	CHECK(t, s->args->left->ref.var->id == 2999 && s->args->right->ref.var->id == 0,
	      "END reads v2999 (id %d) and self->t0 (id %d)", s->args->left->ref.var->id,
	      s->args->right->ref.var->id);
	CHECK(t, s->next->args->ref.agg->id == 1234 && !strcmp(s->next->args->ref.agg->name, "a1234"),
	      "printa finds @a1234");
	dt_program_free(p);
	free(src);
}
