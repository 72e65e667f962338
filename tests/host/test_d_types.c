// SPDX-License-Identifier: BSD-2-Clause
/*
 * Host tests of D's integer types and printf/printa checking in the
 * front end, against what dtrace's compiler does: the type of integer
 * constants (int first, a decimal never unsigned), of operators (the
 * operand type of higher rank, no promotion to int), of built-ins and
 * typedefs; which values each printf conversion accepts (a size prefix
 * names a C type exactly, %llx is lenient with int64_t); printa's %@
 * checked against the aggregation's value type and reused past the
 * aggregations; p[i] rewritten as *(p + i); and dtrace's messages.
 */
#include <stdio.h>
#include <string.h>
#include "host_test.h"
#include "dtrace.h"

/* The type of expr as trace() sees it; kind DT_TYPE_VOID when it did not compile. */
static struct dt_type type_of(const char *expr, char *why, size_t whysize)
{
	char src[512];
	snprintf(src, sizeof(src), "BEGIN { trace(%s); }", expr);
	struct dt_program *p = dt_compile(src, strlen(src), "t.d", 0, NULL, 0);
	struct dt_type t = { .kind = DT_TYPE_VOID };
	if (p && p->nerrors == 0)
		t = p->clauses->stmts->args->type;
	else
		snprintf(why, whysize, "%s", p && p->nerrors ? p->errors[0].message : "no program");
	dt_program_free(p);
	return t;
}

HOST_TEST(d_types_of_expressions)
{
	static const struct {
		const char *expr;
		uint8_t size;
		bool is_signed, is_llong;
	} cases[] = {
		/* constants: int, unsigned int, long, unsigned long, long long, ... */
		{ "1", 4, true, false }, { "2147483647", 4, true, false },
		{ "2147483648", 8, true, false }, { "0x80000000", 4, false, false },
		{ "0xffffffffffffffff", 8, false, false }, { "1u", 4, false, false },
		{ "1ll", 8, true, true }, { "1ull", 8, false, true }, { "'a'", 4, true, false },
		{ "-1", 4, true, false },
		/* operators: the higher rank (bits, then unsigned), never widened to int */
		{ "1 + 1", 4, true, false }, { "1 + 1u", 4, false, false },
		{ "1 + arg0", 8, true, false }, { "(uint32_t)1 + arg0", 8, true, false },
		{ "(char)1 + (char)2", 1, true, false }, { "(uint8_t)1 + (int8_t)2", 1, false, false },
		{ "(short)1 + 1", 4, true, false }, { "timestamp - arg0", 8, false, false },
		{ "(long)1 + (long long)1", 8, true, true }, { "-(uint16_t)1", 2, false, false },
		{ "~(char)1", 1, true, false }, { "(int8_t)1 << 40", 1, true, false },
		{ "1 < arg0", 4, true, false }, { "arg0 && arg1", 4, true, false },
		{ "arg0 ? (char)1 : (short)2", 2, true, false },
		/* built-ins and subroutines, as dtrace types them */
		{ "timestamp", 8, false, false }, { "cpu", 4, true, false },
		{ "epid", 4, false, false }, { "strlen(execname)", 8, false, false },
		{ "index(execname, \"a\")", 4, true, false }, { "rand()", 4, true, false },
		{ "(hrtime_t)1", 8, true, true }, { "(u_longlong_t)1", 8, false, true },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char why[300] = "";
		struct dt_type ty = type_of(cases[i].expr, why, sizeof(why));
		CHECK(t, ty.kind == DT_TYPE_INT && ty.size == cases[i].size &&
		      ty.is_signed == cases[i].is_signed && ty.is_llong == cases[i].is_llong,
		      "%s: kind %d size %d signed %d llong %d %s", cases[i].expr, ty.kind, ty.size,
		      ty.is_signed, ty.is_llong, why);
	}
	char why[300] = "";
	struct dt_type p = type_of("((int *)arg0)[2]", why, sizeof(why));
	CHECK(t, p.kind == DT_TYPE_INT && p.size == 4 && p.is_signed, "p[i] is an int: %s", why);
	p = type_of("((uint16_t **)arg0)[1][3]", why, sizeof(why));
	CHECK(t, p.kind == DT_TYPE_INT && p.size == 2 && !p.is_signed, "pp[i][j]: %s", why);
}

/* The first error of compiling src: its tag, or -1 when it compiles. */
static int first_tag(const char *src, char *msg, size_t size)
{
	struct dt_program *p = dt_compile(src, strlen(src), "t.d", 0, NULL, 0);
	int tag = p && p->nerrors ? (int)p->errors[0].tag : -1;
	snprintf(msg, size, "%s", p && p->nerrors ? p->errors[0].message : "");
	dt_program_free(p);
	return tag;
}

HOST_TEST(d_printf_conversions_accept_as_dtrace)
{
	enum { OK = -1 };
	static const struct {
		const char *conv, *value;
		int tag;
	} cases[] = {
		{ "%d", "(char)1", OK }, { "%d", "(unsigned long long)1", OK },
		{ "%d", "\"s\"", D_PRINTF_ARG_TYPE }, { "%u", "curthread", D_PRINTF_ARG_TYPE },
		{ "%x", "(int *)arg0", D_PRINTF_ARG_TYPE }, { "%p", "(int *)arg0", OK },
		{ "%p", "curthread", OK }, { "%p", "arg0", OK }, { "%a", "(void *)arg0", OK },
		{ "%c", "'a'", OK }, { "%c", "(short)65", OK }, { "%c", "arg0", D_PRINTF_ARG_TYPE },
		{ "%s", "execname", OK }, { "%s", "1", D_PRINTF_ARG_TYPE },
		{ "%Y", "walltimestamp", OK }, { "%Y", "(int)1", D_PRINTF_ARG_TYPE },
		{ "%hd", "(short)1", OK }, { "%hd", "(ushort_t)1", D_PRINTF_ARG_TYPE },
		{ "%hd", "1", D_PRINTF_ARG_TYPE }, { "%hu", "(uint16_t)1", OK },
		{ "%hx", "(short)1", OK }, { "%hX", "(uint16_t)1", OK },
		{ "%ld", "arg0", OK }, { "%ld", "1", D_PRINTF_ARG_TYPE },
		{ "%ld", "(long long)1", D_PRINTF_ARG_TYPE }, { "%lu", "timestamp", OK },
		{ "%lu", "(size_t)1", OK }, { "%lu", "arg0", D_PRINTF_ARG_TYPE },
		{ "%lx", "timestamp", OK }, { "%lx", "arg0", OK },
		{ "%lld", "(long long)1", OK }, { "%lld", "(hrtime_t)1", OK },
		{ "%lld", "arg0", D_PRINTF_ARG_TYPE }, { "%llu", "1ull", OK },
		{ "%llx", "arg0", OK }, { "%llx", "timestamp", OK }, { "%llx", "1ll", OK },
		{ "%llx", "(long)1", D_PRINTF_ARG_TYPE }, { "%llx", "(size_t)1", D_PRINTF_ARG_TYPE },
		{ "%llx", "*(uint64_t *)arg0", OK }, { "%lld", "*(long long *)arg0", OK },
		{ "%llx", "((int64_t *)arg0)[1]", OK }, { "%llx", "*(long *)arg0", D_PRINTF_ARG_TYPE },
		{ "%hhd", "1", D_PRINTF_CONV }, { "%jd", "1", D_PRINTF_CONV },
		{ "%zu", "1", D_PRINTF_CONV }, { "%q", "1", D_PRINTF_CONV },
		{ "%f", "1", D_PRINTF_ARG_TYPE }, { "%f", "*(double *)arg0", OK },
		{ "%Lf", "*(double *)arg0", D_PRINTF_CONV }, { "%lc", "1", D_PRINTF_CONV },
		{ "%1$d", "1", D_PRINTF_CONV }, { "%5%", "1", D_PRINTF_CONV },
		{ "%?d", "1", OK }, { "%'d", "1", OK }, { "%-+ #08.3x", "1", OK },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char src[256], msg[600];
		snprintf(src, sizeof(src), "BEGIN { printf(\"%s\", %s); }", cases[i].conv,
			 cases[i].value);
		int tag = first_tag(src, msg, sizeof(msg));
		CHECK(t, tag == cases[i].tag, "printf(\"%s\", %s): tag %s, want %s (%s)",
		      cases[i].conv, cases[i].value, tag < 0 ? "none" : dt_errtag_name(tag),
		      cases[i].tag < 0 ? "none" : dt_errtag_name(cases[i].tag), msg);
	}
}

HOST_TEST(d_printf_messages_are_dtrace_s)
{
	char msg[600];
	first_tag("BEGIN { printf(\"100%% %ld\", 1); }", msg, sizeof(msg));
	CHECK(t, !strcmp(msg, "printf( ) argument #2 is incompatible with conversion #2 "
			 "prototype:\n\tconversion: %ld\n\t prototype: long\n\t  argument: int"),
	      "%s", msg);
	first_tag("BEGIN { printf(\"%*d\", \"w\", 1); }", msg, sizeof(msg));
	CHECK(t, !strcmp(msg, "printf( ) argument #2 is incompatible with conversion #1 "
			 "prototype:\n\tconversion: % * d\n\t prototype: int\n\t  argument: string"),
	      "%s", msg);
	first_tag("BEGIN { printf(\"%d %d\", 1, 2, 3); }", msg, sizeof(msg));
	CHECK(t, !strcmp(msg, "printf( ) prototype mismatch: only 2 arguments required by this "
			 "format string"), "%s", msg);
	first_tag("BEGIN { printf(\"%s %.*d\", \"a\"); }", msg, sizeof(msg));
	CHECK(t, !strcmp(msg, "printf( ) prototype mismatch: conversion #2 (%d) is missing a "
			 "corresponding \".*\" argument"), "%s", msg);
	first_tag("BEGIN { printf(\"%3\"); }", msg, sizeof(msg));
	CHECK(t, !strcmp(msg, "format conversion #1 name expected before end of format string"),
	      "%s", msg);
	first_tag("BEGIN { @a = count(); printa(\"%@s\", @a); }", msg, sizeof(msg));
	CHECK(t, !strcmp(msg, "printa( ) aggregating action is incompatible with conversion #1 "
			 "prototype:\n\tconversion: %s\n\t prototype: char [] or string (or use "
			 "stringof)\n\t  argument: uint64_t"), "%s", msg);
}

HOST_TEST(d_printa_formats)
{
	char msg[600];
	static const struct {
		const char *src;
		int tag;
	} cases[] = {
		{ "@a[1] = count(); printa(\"%d %@lu\", @a);", -1 },
		{ "@a[1] = sum(1); printa(\"%d %@ld\", @a);", -1 },
		{ "@a[1] = sum(1); printa(\"%d %@lu\", @a);", D_PRINTF_ARG_TYPE },
		{ "@a[1] = sum(1); printa(\"%@c\", @a);", D_PRINTF_ARG_TYPE },
		{ "@a[1] = sum(1); printa(\"%10@d %-10@u %@5x\", @a);", -1 },
		{ "@a[1, 2] = sum(1); printa(\"%*d\", @a);", -1 },
		{ "@a[\"k\", 2] = sum(1); printa(\"%*d\", @a);", D_PRINTF_DYN_TYPE },
		{ "@a[1] = sum(1); printa(\"%d %d\", @a);", D_PRINTF_ARG_PROTO },
		{ "@a[1] = sum(1); printa(\"%s\", @a);", D_PRINTF_ARG_TYPE },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char src[256];
		snprintf(src, sizeof(src), "BEGIN { %s }", cases[i].src);
		int tag = first_tag(src, msg, sizeof(msg));
		CHECK(t, tag == cases[i].tag, "%s: tag %s (%s)", cases[i].src,
		      tag < 0 ? "none" : dt_errtag_name(tag), msg);
	}

	/* More %@ than aggregations: the extra ones print the last aggregation again. */
	const char *src = "BEGIN { @a = count(); @b = sum(1); printa(\"%@d %@d %@d %@d\", @a, @b); }";
	struct dt_program *p = dt_compile(src, strlen(src), "t.d", 0, NULL, 0);
	REQUIRE(t, p && p->nerrors == 0, "compiles: %s", p && p->nerrors ?
		p->errors[0].message : "");
	const struct dt_stmt *s = p->clauses->stmts->next->next;
	REQUIRE(t, s->format && s->format->nconv == 4, "four conversions");
	CHECK(t, s->format->convs[0].arg == 0 && s->format->convs[1].arg == 1 &&
	      s->format->convs[2].arg == 1 && s->format->convs[3].arg == 1,
	      "aggregations 0, 1, 1, 1: %d %d %d %d", s->format->convs[0].arg,
	      s->format->convs[1].arg, s->format->convs[2].arg, s->format->convs[3].arg);
	dt_program_free(p);
}
