// SPDX-License-Identifier: BSD-2-Clause
/*
 * Host tests of the D code generator (host/dtrace/dt_cg*.c): D
 * snippets compiled through dt_generate and their programs RUN by the
 * portable interpreter in a fake kernel (d_cg_helpers.c). Expressions are
 * checked two ways: against expected values (signedness, truncation,
 * precedence) and against the front end's constant folding of the same
 * expression with the arguments written as constants, over edge values.
 * Also: short-circuit evaluation, ?:, strings and subroutines, variables
 * of each scope and associative arrays (keys converted to their
 * signature's types), ++/--/op= on narrow types,
 * curthread members and NULL thread pointers, speculation, and the
 * errors code generation reports.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "host_test.h"
#include "d_cg_helpers.h"

HOST_TEST(d_cg_expression_values)
{
	static const struct {
		const char *expr;
		int64_t args[D_NARGS];
		uint64_t want;
	} cases[] = {
		{ "arg0 + arg1 * arg2", { 1, 2, 3 }, 7 },
		{ "(arg0 + arg1) * arg2", { 1, 2, 3 }, 9 },
		{ "arg0 - arg1 - arg2", { 10, 3, 2 }, 5 },
		{ "arg0 / arg1", { -7, 2, 0 }, (uint64_t)-3 },
		{ "arg0 % arg1", { -7, 2, 0 }, (uint64_t)-1 },
		{ "(uint64_t)arg0 / arg1", { -1, 2, 0 }, UINT64_MAX / 2 },
		{ "(uint32_t)arg0 / arg1", { -1, 2, 0 }, 0x7fffffff },
		{ "arg0 >> arg1", { -8, 1, 0 }, (uint64_t)-4 },
		{ "(uint64_t)arg0 >> arg1", { -8, 1, 0 }, (uint64_t)-8 >> 1 },
		{ "arg0 << arg1 + arg2", { 1, 2, 3 }, 32 },
		{ "(uint8_t)arg0", { 300, 0, 0 }, 44 },
		{ "(int8_t)arg0", { 200, 0, 0 }, (uint64_t)-56 },
		{ "(int16_t)arg0", { 0x18000, 0, 0 }, (uint64_t)-32768 },
		{ "(uint16_t)arg0", { -1, 0, 0 }, 0xffff },
		{ "(int32_t)arg0", { 0xffffffff, 0, 0 }, (uint64_t)-1 },
		{ "(uint32_t)arg0", { -2, 0, 0 }, 0xfffffffe },
		{ "(uint64_t)(int32_t)arg0", { 0x80000000, 0, 0 }, 0xffffffff80000000ull },
		{ "arg0 < arg1", { -1, 1, 0 }, 1 },
		{ "(uint64_t)arg0 < arg1", { -1, 1, 0 }, 0 },
		{ "arg0 >= arg1", { 5, 5, 0 }, 1 },
		{ "arg0 > arg1", { 5, 5, 0 }, 0 },
		{ "arg0 <= arg1", { 4, 5, 0 }, 1 },
		{ "(uint32_t)arg0 < (int32_t)arg1", { -1, -1, 0 }, 0 },
		{ "arg0 == arg1 || arg1 == arg2", { 1, 2, 2 }, 1 },
		{ "arg0 & arg1 | arg2 ^ arg0", { 12, 10, 3 }, (12 & 10) | (3 ^ 12) },
		{ "~arg0", { 0, 0, 0 }, UINT64_MAX },
		{ "-arg0", { 5, 0, 0 }, (uint64_t)-5 },
		{ "!arg0", { 5, 0, 0 }, 0 },
		{ "-(uint8_t)arg0", { 255, 0, 0 }, 1 },	/* dtrace: -uint8_t is a uint8_t */
		{ "(int32_t)arg0 + 1", { INT32_MAX, 0, 0 }, (uint64_t)INT32_MIN },
		{ "(uint32_t)arg0 + 1", { UINT32_MAX, 0, 0 }, 0 },
		{ "(int8_t)arg0 + (int8_t)arg1", { 100, 100, 0 }, (uint64_t)-56 },
		{ "(uint8_t)arg0 + (uint8_t)arg1", { 250, 10, 0 }, 4 },
		{ "(int8_t)arg0 + 1", { 127, 0, 0 }, 128 },	/* int wins over int8_t */
		{ "(uint32_t)arg0 / 2", { -1, 0, 0 }, 0x7fffffff },
		{ "(uint32_t)arg0 % 10", { -1, 0, 0 }, 5 },
		{ "(uint32_t)arg0 >> 28", { -1, 0, 0 }, 15 },
		{ "(int32_t)arg0 / -1", { INT32_MIN, 0, 0 }, (uint64_t)INT32_MIN },
		{ "~(uint32_t)arg0", { 0, 0, 0 }, UINT32_MAX },
		{ "(int32_t)arg0 < (uint32_t)arg1", { -1, 1, 0 }, 0 },	/* compared unsigned */
		{ "(int32_t)arg0 == (uint32_t)arg1", { -1, UINT32_MAX, 0 }, 1 },
		{ "(int16_t)arg0 < (int32_t)arg1", { -1, 1, 0 }, 1 },
		{ "arg0 ? (int8_t)arg1 : (uint8_t)arg2", { 1, -1, 0 }, 255 },
		{ "arg0 ^^ arg1", { 3, 4, 0 }, 0 },
		{ "arg0 ? arg1 : arg2", { 0, 1, 2 }, 2 },
		{ "(arg0, arg1)", { 1, 2, 0 }, 2 },
		{ "arg0 * 0x100000000", { 3, 0, 0 }, 0x300000000ull },
		{ "arg0 + 0x7fffffff", { 1, 0, 0 }, 0x80000000ull },
		{ "arg0 - 9223372036854775807", { 0, 0, 0 }, (uint64_t)-INT64_MAX },
		{ "arg0 / arg1", { INT64_MIN, -1, 0 }, (uint64_t)INT64_MIN },
		{ "curthread->tid + tid", { 0, 0, 0 }, 84 },
		{ "rand()", { 0, 0, 0 }, (uint64_t)(int64_t)(int32_t)0x9abcdef0 },
		{ "func(arg0) + sym(arg1)", { 1, 2, 0 }, 3 },
		{ "strlen(execname) + strlen(probefunc)", { 0, 0, 0 }, 7 + 11 },
		{ "index(\"hello\", \"l\", arg0)", { 3, 0, 0 }, 3 },
		{ "execname == \"kworker\"", { 0, 0, 0 }, 1 },
		{ "execname != \"kworker\"", { 0, 0, 0 }, 0 },
		{ "\"abc\" < \"abd\"", { 0, 0, 0 }, 1 },
		{ "\"abc\" > \"abd\"", { 0, 0, 0 }, 0 },
		{ "\"b\" >= \"abd\"", { 0, 0, 0 }, 1 },
		{ "\"abc\" <= \"abc\"", { 0, 0, 0 }, 1 },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		uint64_t got;
		char why[300];
		if (!d_eval(cases[i].expr, cases[i].args, &got, why, sizeof(why))) {
			CHECK(t, false, "%s: %s", cases[i].expr, why);
			continue;
		}
		CHECK(t, got == cases[i].want, "%s with %lld, %lld, %lld: got %#llx, want %#llx",
		      cases[i].expr, (long long)cases[i].args[0], (long long)cases[i].args[1],
		      (long long)cases[i].args[2], (unsigned long long)got,
		      (unsigned long long)cases[i].want);
	}
}

/* expr with argN written as the constant args[N] ("((int64_t)0x...)"). */
static void substitute(const char *expr, const int64_t args[D_NARGS], char *out, size_t size)
{
	size_t o = 0;
	for (const char *p = expr; *p && o + 40 < size;) {
		if (!strncmp(p, "arg", 3) && p[3] >= '0' && p[3] < '0' + D_NARGS) {
			o += (size_t)snprintf(out + o, size - o, "((int64_t)0x%llx)",
					      (unsigned long long)args[p[3] - '0']);
			p += 4;
		} else {
			out[o++] = *p++;
		}
	}
	out[o] = '\0';
}

/* The folded value of trace(expr) over constants: 1, 0 (division by zero), -1 (not folded). */
static int fold(const char *expr, uint64_t *value)
{
	char src[1100];
	snprintf(src, sizeof(src), "BEGIN { trace(%s); }", expr);
	struct dt_program *p = dt_compile(src, strlen(src), "t.d", 0, NULL, 0);
	int rc = -1;
	if (p && p->nerrors == 1 && p->errors[0].tag == D_DIV_ZERO)
		rc = 0;
	else if (p && p->nerrors == 0 && p->clauses->stmts->args->kind == DT_N_INT)
		rc = 1, *value = p->clauses->stmts->args->value;
	dt_program_free(p);
	return rc;
}

HOST_TEST(d_cg_arithmetic_matches_constant_folding)
{
	static const char *const exprs[] = {
		"arg0 + arg1 * arg2", "arg0 - arg1", "arg0 * arg1", "arg0 / arg1", "arg0 % arg1",
		"(uint64_t)arg0 / arg1", "(uint64_t)arg0 % arg1", "arg0 / (uint32_t)arg1",
		"arg0 << arg1", "arg0 >> arg1", "(uint64_t)arg0 >> arg1", "(int8_t)arg0 >> arg1",
		"arg0 >> (uint64_t)arg1", "(uint32_t)arg0 >> arg1",
		"(int8_t)arg0", "(uint8_t)arg0", "(int16_t)arg0", "(uint16_t)arg0", "(int32_t)arg0",
		"(uint32_t)arg0", "(int8_t)(arg0 + arg1)", "(uint16_t)arg0 * (int8_t)arg1",
		"(uint64_t)(int32_t)arg0", "(int64_t)(uint32_t)arg0",
		"arg0 < arg1", "arg0 <= arg1", "arg0 > arg1", "arg0 >= arg1", "arg0 == arg1",
		"arg0 != arg1", "(uint64_t)arg0 < arg1", "arg0 >= (uint64_t)arg1",
		"(uint32_t)arg0 < (int32_t)arg1", "(uint8_t)arg0 > (int8_t)arg1",
		"arg0 & arg1", "arg0 | arg2", "arg0 ^ arg1", "~arg0", "-arg0", "!arg0", "+arg0",
		"-(uint8_t)arg0", "~(uint16_t)arg1",
		"arg0 && arg1", "arg0 || arg1", "arg0 ^^ arg1", "!arg0 || arg1 && arg2",
		"arg0 ? arg1 : arg2", "arg0 < 0 ? -arg0 : arg0", "(arg0, arg1)",
		"arg0 + 0x80000000", "arg0 * -1",
		/* narrow types: dtrace's promotion, results wrapped to the type */
		"(int32_t)arg0 + (int32_t)arg1", "(int32_t)arg0 * (int32_t)arg1",
		"(uint32_t)arg0 + 1", "(uint32_t)arg0 * (int32_t)arg1", "-(int32_t)arg0",
		"~(uint32_t)arg0", "(int8_t)arg0 + (int8_t)arg1", "(uint8_t)arg0 - (int8_t)arg1",
		"(uint16_t)arg0 << arg1", "(int16_t)arg0 >> arg1", "(uint32_t)arg0 >> arg1",
		"(int32_t)arg0 / (int32_t)arg1", "(int32_t)arg0 % (int32_t)arg1",
		"(uint32_t)arg0 / (int32_t)arg1", "(int32_t)arg0 % (uint32_t)arg1",
		"(int32_t)arg0 & (uint32_t)arg1", "(int8_t)arg0 | (uint16_t)arg1",
		"(int32_t)arg0 < (uint32_t)arg1", "(int32_t)arg0 == (uint32_t)arg1",
		"(int16_t)arg0 >= (int64_t)arg1", "(uint8_t)arg0 <= (int32_t)arg1",
		"arg0 ? (int8_t)arg1 : (uint8_t)arg2", "(int32_t)arg0 + arg1",
	};
	static const int64_t values[] = {
		0, 1, -1, 2, -7, 63, 64, 200, 300, 0x8000, 0xffffffff, 0x100000000,
		INT64_MAX, INT64_MIN,
	};
	const int nvalues = (int)(sizeof(values) / sizeof(values[0]));
	int compared = 0;

	for (size_t e = 0; e < sizeof(exprs) / sizeof(exprs[0]); e++) {
		char src[512];
		snprintf(src, sizeof(src), "BEGIN { trace(%s); }", exprs[e]);
		struct dt_program *p;
		struct dt_object *obj = d_generate(src, &p);
		char why[300];
		if (!obj) {
			CHECK(t, false, "%s: %s", exprs[e], d_first_error(p, why, sizeof(why)));
			dt_program_free(p);
			continue;
		}
		for (int a = 0; a < nvalues; a++) {
			for (int b = 0; b < nvalues; b++) {
				int64_t args[D_NARGS] = { values[a], values[b], values[(a + b) % nvalues] };
				char constant[1024];
				uint64_t want = 0;
				substitute(exprs[e], args, constant, sizeof(constant));
				int folded = fold(constant, &want);
				if (folded < 0) {
					CHECK(t, false, "%s does not fold", constant);
					continue;
				}
				struct fake_kernel k;
				fake_kernel_init(&k);
				for (int i = 0; i < D_NARGS; i++)
					k.builtin[DIF_VAR_ARG0 + i] = (uint64_t)args[i];
				int rc = fake_fire(&k, obj, 0);
				compared++;
				if (!folded) {
					CHECK(t, rc == -1 && k.fault.kind == DIF_FAULT_DIVZERO,
					      "%s: divides by zero when folded, not when run", constant);
				} else {
					CHECK(t, rc == 0 && k.records[0].value == want, "%s: runs to %#llx "
					      "(rc %d), folds to %#llx", constant,
					      (unsigned long long)k.records[0].value, rc,
					      (unsigned long long)want);
				}
				fake_kernel_reset(&k);
			}
		}
		dt_program_free(p);
	}
	CHECK(t, compared > 5000, "only %d comparisons", compared);
}

/* Clause 0 of src, run once with args: the kernel after it (faults reported through t). */
static void run_clause(struct host_test_ctx *t, const char *src, const int64_t args[D_NARGS],
		       struct fake_kernel *k)
{
	char why[300];
	fake_kernel_init(k);
	CHECK(t, d_run(src, args, k, why, sizeof(why)) == 0, "%s: %s", src, why);
}

static uint64_t rec(const struct fake_kernel *k, unsigned i)
{
	return i < k->nrecords ? k->records[i].value : 0xdeadull;
}

HOST_TEST(d_cg_short_circuit)
{
	struct fake_kernel k;
	static const int64_t zero[D_NARGS] = { 0, 0, 0 }, one[D_NARGS] = { 1, 0, 0 };

	run_clause(t, "BEGIN { x = 0; y = arg0 && (x = 5); trace(x); trace(y); }", zero, &k);
	CHECK(t, rec(&k, 0) == 0 && rec(&k, 1) == 0, "&& evaluated its right side: x %llu",
	      (unsigned long long)rec(&k, 0));
	fake_kernel_reset(&k);
	run_clause(t, "BEGIN { x = 0; y = arg0 && (x = 5); trace(x); trace(y); }", one, &k);
	CHECK(t, rec(&k, 0) == 5 && rec(&k, 1) == 1, "&& skipped its right side");
	fake_kernel_reset(&k);
	run_clause(t, "BEGIN { x = 0; y = arg0 || (x = 5); trace(x); trace(y); }", one, &k);
	CHECK(t, rec(&k, 0) == 0 && rec(&k, 1) == 1, "|| evaluated its right side");
	fake_kernel_reset(&k);
	run_clause(t, "BEGIN { x = 0; y = arg0 || (x = 0); trace(x); trace(y); }", zero, &k);
	CHECK(t, rec(&k, 0) == 0 && rec(&k, 1) == 0, "|| of two zeros");
	fake_kernel_reset(&k);
	run_clause(t, "BEGIN { x = 0; y = arg0 ^^ (x = 5); trace(x); trace(y); }", one, &k);
	CHECK(t, rec(&k, 0) == 5 && rec(&k, 1) == 0, "^^ must evaluate both sides");
	fake_kernel_reset(&k);
	/* A division by zero on the side not taken never runs. */
	run_clause(t, "BEGIN { trace(arg0 != 0 && 10 / arg0 > 1); trace(arg0 ? 1 / arg0 : 7); }",
		   zero, &k);
	CHECK(t, rec(&k, 0) == 0 && rec(&k, 1) == 7, "guarded division");
	fake_kernel_reset(&k);
}

HOST_TEST(d_cg_strings_and_subroutines)
{
	static const struct {
		const char *expr;
		const char *want;
	} cases[] = {
		{ "\"lit\"", "lit" },
		{ "execname", "kworker" },
		{ "curthread->name", "kworker" },
		{ "strjoin(execname, \"/x\")", "kworker/x" },
		{ "strjoin(strjoin(\"a\", \"b\"), strjoin(\"c\", \"d\"))", "abcd" },
		{ "substr(probefunc, 2, 4)", "ache" },
		{ "substr(\"hello\", -3)", "llo" },
		/* starts and lengths at the ends of int64_t: no sum may overflow (UBSan watches) */
		{ "substr(\"a\", -9223372036854775807, 2)", "" },
		{ "substr(\"a\", -9223372036854775807 - 1)", "" },
		{ "substr(\"hello\", 1, -9223372036854775807)", "" },
		{ "substr(\"hello\", 9223372036854775807, 9223372036854775807)", "" },
		{ "substr(\"hello\", -2, 9223372036854775807)", "lo" },
		{ "lltostr(arg0)", "-42" },
		{ "lltostr(255, 16)", "0xff" },
		{ "basename(\"/usr/lib/libc.so\")", "libc.so" },
		{ "dirname(\"/usr/lib/libc.so\")", "/usr/lib" },
		{ "arg0 < 0 ? \"negative\" : \"positive\"", "negative" },
		{ "arg1 ? probename : probeprov", "fbt" },
		{ "(string)probemod", "kernel" },
	};
	static const int64_t args[D_NARGS] = { -42, 0, 0 };
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char src[512], why[300] = "";
		struct fake_kernel k;
		fake_kernel_init(&k);
		snprintf(src, sizeof(src), "BEGIN { trace(%s); }", cases[i].expr);
		int rc = d_run(src, args, &k, why, sizeof(why));
		CHECK(t, rc == 0 && k.nrecords == 1 && k.records[0].is_string &&
		      !strcmp(k.records[0].str, cases[i].want), "%s: got \"%s\" (%s), want \"%s\"",
		      cases[i].expr, k.nrecords ? k.records[0].str : "", why, cases[i].want);
		fake_kernel_reset(&k);
	}
}

HOST_TEST(d_cg_variables_of_each_scope)
{
	static const int64_t args[D_NARGS] = { 7, 0, 0 };
	struct dt_program *p;
	struct dt_object *obj = d_generate(
		"int64_t g; BEGIN { g = g + arg0; self->s = self->s + 1; this->c = this->c + 1;"
		" self->name = execname; this->str = strjoin(self->name, \"!\");"
		" trace(g); trace(self->s); trace(this->c); trace(this->str); }", &p);
	char why[300];
	REQUIRE(t, obj, "%s", d_first_error(p, why, sizeof(why)));
	struct fake_kernel k;
	fake_kernel_init(&k);
	for (int i = 0; i < D_NARGS; i++)
		k.builtin[DIF_VAR_ARG0 + i] = (uint64_t)args[i];
	for (int firing = 1; firing <= 3; firing++) {
		k.thread = firing == 3 ? 99 : 42;	/* the third firing on another thread */
		REQUIRE(t, fake_fire(&k, obj, 0) == 0, "firing %d faults", firing);
		CHECK(t, rec(&k, 0) == 7u * (unsigned)firing, "global after %d firings: %llu", firing,
		      (unsigned long long)rec(&k, 0));
		CHECK(t, rec(&k, 1) == (firing == 3 ? 1u : (unsigned)firing), "self-> after %d "
		      "firings: %llu", firing, (unsigned long long)rec(&k, 1));
		CHECK(t, rec(&k, 2) == 1, "this-> must start at 0 each firing: %llu",
		      (unsigned long long)rec(&k, 2));
		CHECK(t, !strcmp(k.records[3].str, "kworker!"), "string this->: %s", k.records[3].str);
	}
	fake_kernel_reset(&k);
	dt_program_free(p);
}

HOST_TEST(d_cg_associative_arrays)
{
	static const int64_t args[D_NARGS] = { 5, 6, 0 };
	struct fake_kernel k;
	run_clause(t, "BEGIN { a[arg0, \"x\"] = 10; a[arg1, \"x\"] = 20; a[arg0, \"y\"] = 30;"
		   " b[1] = 2; trace(a[arg0, \"x\"]); trace(a[arg1, \"x\"]); trace(a[5, \"y\"]);"
		   " trace(a[7, \"x\"]); trace(a[b[1] + 3, \"x\"]); a[arg0, \"x\"] += a[arg1, \"x\"];"
		   " trace(a[arg0, \"x\"]); self->t[execname] = arg1; trace(self->t[\"kworker\"]);"
		   " a[arg0, \"x\"] = 0; trace(a[arg0, \"x\"]); }", args, &k);
	static const uint64_t want[] = { 10, 20, 30, 0, 10, 30, 6, 0 };
	CHECK(t, k.nrecords == sizeof(want) / sizeof(want[0]), "%u records", k.nrecords);
	for (unsigned i = 0; i < sizeof(want) / sizeof(want[0]); i++)
		CHECK(t, rec(&k, i) == want[i], "record %u: %llu, want %llu", i,
		      (unsigned long long)rec(&k, i), (unsigned long long)want[i]);
	unsigned live = 0;
	for (unsigned i = 0; i < k.nvars; i++)
		live += k.vars[i].kind == DIF_KIND_ASSOC;
	CHECK(t, live == 4, "storing 0 must delete the element: %u elements left", live);
	fake_kernel_reset(&k);

	/* Keys of arrays and calls nested in keys: the tuple is never shared. */
	run_clause(t, "BEGIN { n[\"k\"] = 2; m[strjoin(\"a\", \"b\"), n[\"k\"]] = 9;"
		   " trace(m[\"ab\", 2]); trace(m[substr(\"xab\", 1), strlen(\"zz\")]); }", args, &k);
	CHECK(t, rec(&k, 0) == 9 && rec(&k, 1) == 9, "nested keys: %llu %llu",
	      (unsigned long long)rec(&k, 0), (unsigned long long)rec(&k, 1));
	fake_kernel_reset(&k);
}

/*
 * Integer keys take the key types of their array's or aggregation's
 * signature, as DTrace converts a tuple to its prototype (found by the D
 * oracle, tests/dref/): a[300] is a[44] when a's key is a uint8_t.
 */
HOST_TEST(d_cg_keys_convert_to_the_signature)
{
	static const int64_t args[D_NARGS] = { 300, -1, 0 };
	struct fake_kernel k;
	run_clause(t, "int8_t a[uint8_t]; BEGIN { a[arg0] = 5; trace(a[44]); trace(a[(uint8_t)arg0]);"
		   " self->s[(int16_t)arg1] = 7; trace(self->s[65535]); @k[(uint8_t)arg1] = count();"
		   " @k[arg0] = count(); @k[arg1] = count(); }", args, &k);
	CHECK(t, k.nrecords == 3 && rec(&k, 0) == 5 && rec(&k, 1) == 5 && rec(&k, 2) == 7,
	      "a[300] is a[44] for a uint8_t key: %llu %llu %llu", (unsigned long long)rec(&k, 0),
	      (unsigned long long)rec(&k, 1), (unsigned long long)rec(&k, 2));
	const struct fake_agg_update *u = k.aggs;
	CHECK(t, k.naggs == 3 && u[0].keys[0].value == 255 && u[1].keys[0].value == 44 &&
	      u[2].keys[0].value == 255, "@k's keys as its uint8_t: %llu %llu %llu",
	      (unsigned long long)u[0].keys[0].value, (unsigned long long)u[1].keys[0].value,
	      (unsigned long long)u[2].keys[0].value);
	fake_kernel_reset(&k);
}

HOST_TEST(d_cg_increments_and_compound_assignments)
{
	static const int64_t args[D_NARGS] = { 250, 3, 0 };
	struct fake_kernel k;
	run_clause(t, "uint8_t x; int8_t s; BEGIN { x = arg0; trace(x); x += 10; trace(x);"
		   " trace(x++); trace(x); trace(--x); trace(x--); trace(x);"
		   " s = 127; s++; trace(s); s -= 1; trace(s); s = -arg0; trace(s);"
		   " y = 10; y *= arg1; trace(y); y /= -4; trace(y); y %= 4; trace(y);"
		   " y = -16; y >>= 2; trace(y); y <<= arg1; trace(y); y |= 1; trace(y);"
		   " y &= 3; trace(y); y ^= 7; trace(y); }", args, &k);
	static const int64_t want[] = {
		250, 4, 4, 5, 4, 4, 3,		/* uint8 wraps at 256 */
		-128, 127, 6,			/* int8: 127 + 1 wraps; -250 is 6 in 8 bits */
		30, -7, -3, -4, -32, -31, 1, 6,
	};
	CHECK(t, k.nrecords == sizeof(want) / sizeof(want[0]), "%u records", k.nrecords);
	for (unsigned i = 0; i < sizeof(want) / sizeof(want[0]); i++)
		CHECK(t, rec(&k, i) == (uint64_t)want[i], "record %u: %lld, want %lld", i,
		      (long long)rec(&k, i), (long long)want[i]);
	fake_kernel_reset(&k);

	run_clause(t, "BEGIN { self->c[arg0] = 1; self->c[arg0]++; ++self->c[arg0];"
		   " trace(self->c[arg0]--); trace(self->c[250]); this->n = 5; trace(this->n++ +"
		   " this->n); }", args, &k);
	CHECK(t, rec(&k, 0) == 3 && rec(&k, 1) == 2 && rec(&k, 2) == 11, "array ++/--: %llu %llu "
	      "%llu", (unsigned long long)rec(&k, 0), (unsigned long long)rec(&k, 1),
	      (unsigned long long)rec(&k, 2));
	fake_kernel_reset(&k);
}

HOST_TEST(d_cg_thread_members)
{
	static const int64_t args[D_NARGS] = { 0, 0, 0 };
	struct fake_kernel k;
	fake_kernel_init(&k);
	k.builtin[DIF_VAR_THREAD_AFFINITY] = (uint64_t)-1;
	k.builtin[DIF_VAR_THREAD_TICKS_RUN] = 123;
	k.builtin[DIF_VAR_THREAD_SWITCHES_IN] = 456;
	char why[300];
	int rc = d_run("BEGIN { trace(curthread->tid); trace(curthread->affinity);"
		       " trace(curthread->ticks_run); trace(curthread->switches_in);"
		       " self->t = curthread; trace(self->t->tid); this->t = curthread;"
		       " trace(this->t->switches_in); trace(curthread != 0); }", args, &k, why,
		       sizeof(why));
	CHECK(t, rc == 0, "%s", why);
	static const int64_t want[] = { 42, -1, 123, 456, 42, 456, 1 };
	for (unsigned i = 0; i < sizeof(want) / sizeof(want[0]); i++)
		CHECK(t, rec(&k, i) == (uint64_t)want[i], "record %u: %lld, want %lld", i,
		      (long long)rec(&k, i), (long long)want[i]);
	fake_kernel_reset(&k);

	/* self->t not assigned on this thread is NULL: a member faults as a NULL deref does. */
	struct dt_program *p;
	struct dt_object *obj = d_generate("BEGIN { self->t = curthread; } END { trace(self->t->tid); }",
					   &p);
	REQUIRE(t, obj, "%s", d_first_error(p, why, sizeof(why)));
	fake_kernel_init(&k);
	CHECK(t, fake_fire(&k, obj, 0) == 0 && fake_fire(&k, obj, 1) == 0 && rec(&k, 0) == 42,
	      "self->t->tid on the thread that set it");
	k.thread = 7;
	rc = fake_fire(&k, obj, 1);
	CHECK(t, rc == -1 && k.fault.kind == DIF_FAULT_BADADDR && k.fault.addr == 0,
	      "member of a NULL thread: rc %d, fault %s", rc, dif_fault_name(k.fault.kind));
	fake_kernel_reset(&k);
	dt_program_free(p);
}

HOST_TEST(d_cg_weighted_quantize_has_an_increment_program)
{
	static const int64_t args[D_NARGS] = { 100, 7, 0 };
	struct fake_kernel k;
	run_clause(t, "BEGIN { @q[probefunc] = quantize(arg0, arg1 * 2); "
		   "@l = lquantize(arg0, 0, 1000, 10, -3); @p = quantize(arg0); "
		   "@m = lquantize(arg0, 0, 1000, 10); @s = sum(arg1); @c = count(); }", args, &k);
	CHECK(t, k.naggs == 6, "%u aggregation updates", k.naggs);
	const struct fake_agg_update *u = k.aggs;
	CHECK(t, u[0].nkeys == 1 && !strcmp(u[0].keys[0].str, "bcache_read") && u[0].has_value &&
	      u[0].value == 100 && u[0].has_incr && u[0].incr == 14,
	      "quantize(arg0, arg1 * 2): value %llu, increment %s%llu",
	      (unsigned long long)u[0].value, u[0].has_incr ? "" : "none ",
	      (unsigned long long)u[0].incr);
	CHECK(t, u[1].value == 100 && u[1].has_incr && u[1].incr == (uint64_t)-3,
	      "lquantize(arg0, 0, 1000, 10, -3): increment %lld", (long long)u[1].incr);
	for (unsigned i = 2; i < 6 && i < k.naggs; i++)
		CHECK(t, !u[i].has_incr, "update %u has an increment without one written", i);
	CHECK(t, k.naggs == 6 && u[4].value == 7 && !u[5].has_value, "sum and count values");
	fake_kernel_reset(&k);
}

HOST_TEST(d_cg_speculation_runs_first_with_its_assignments)
{
	struct dt_program *p;
	struct dt_object *obj = d_generate(
		"BEGIN { self->spec = speculation(); x = 1; speculate(self->spec); trace(x); }"
		"END { commit(self->spec); } END { discard(2); }", &p);
	char why[300];
	REQUIRE(t, obj, "%s", d_first_error(p, why, sizeof(why)));
	const struct dt_clause_code *cc = &obj->clauses[0];
	REQUIRE(t, cc->nkactions == 2, "%d actions", cc->nkactions);
	CHECK(t, cc->kactions[0].kind == DOF_ACT_SPECULATE && cc->kactions[1].kind == DOF_ACT_RECORD,
	      "speculate must be the first action");
	struct fake_kernel k;
	fake_kernel_init(&k);
	REQUIRE(t, fake_fire(&k, obj, 0) == 0, "fault");
	CHECK(t, k.nspeculations == 1 && k.speculations[0] == 1, "speculate( ) got id %llu",
	      (unsigned long long)k.speculations[0]);
	CHECK(t, rec(&k, 0) == 1, "the assignment before speculate( ) ran: %llu",
	      (unsigned long long)rec(&k, 0));
	REQUIRE(t, fake_fire(&k, obj, 1) == 0, "commit faults");
	CHECK(t, k.nspeculations == 1 && k.speculations[0] == 1, "commit( ) of id 1");
	CHECK(t, obj->clauses[1].kactions[0].kind == DOF_ACT_COMMIT &&
	      obj->clauses[2].kactions[0].kind == DOF_ACT_DISCARD, "commit and discard actions");
	CHECK(t, !(obj->clauses[1].flags & DOF_CLAUSE_RECORD), "commit( ) records nothing");
	fake_kernel_reset(&k);
	dt_program_free(p);
}

/* src must fail code generation with tag and a message containing `text`. */
static void expect_cg_error(struct host_test_ctx *t, const char *src, enum dt_errtag tag,
			    const char *text)
{
	struct dt_program *p = dt_compile(src, strlen(src), "t.d", 0, NULL, 0);
	REQUIRE(t, p && p->nerrors == 0, "%.60s: does not compile", src);
	struct dt_object *obj = (struct dt_object *)1;
	int rc = dt_generate(p, &obj);
	CHECK(t, rc == -1 && obj == NULL && p->nerrors >= 1, "%.60s: generated", src);
	if (p->nerrors) {
		CHECK(t, p->errors[0].tag == tag, "%.60s: %s, want %s", src,
		      dt_errtag_name(p->errors[0].tag), dt_errtag_name(tag));
		CHECK(t, strstr(p->errors[0].message, text), "%.60s: message \"%s\"", src,
		      p->errors[0].message);
	}
	dt_program_free(p);
}

HOST_TEST(d_cg_errors)
{
	/* 16 values live at once: one more than r1..r15. */
	expect_cg_error(t, "BEGIN { trace(arg0 + (arg1 + (arg2 + (arg3 + (arg4 + (arg5 + (arg6 + "
			"(arg7 + (arg8 + (arg9 + (arg0 + (arg1 + (arg2 + (arg3 + (arg4 + (arg5 + "
			"arg6)))))))))))))))); }", D_CG_EXPR, "expression too complex");
	expect_cg_error(t, "BEGIN { stack(100); }", D_STACK_SIZE, "at most 64");
	expect_cg_error(t, "#pragma D option stackframes=65\nBEGIN { stack(); }", D_STACK_SIZE,
			"stackframes");
	expect_cg_error(t, "#pragma D option strsize=8k\nBEGIN { trace(1); }", D_PRAGMA_OPTSET,
			"strsize");
	expect_cg_error(t, "#pragma D option bufresize=manual\n#pragma D option aggsize=2g\n"
			"BEGIN { trace(1); }", D_PRAGMA_OPTSET, "aggsize");
	expect_cg_error(t, "#pragma D option aggsize=1k\nBEGIN { trace(1); }", D_PRAGMA_OPTSET,
			"less than Scion's minimum (4096)");
	expect_cg_error(t, "#pragma D option strsize=4k\nBEGIN { printf(\"%s %s\", execname, "
			"execname); }", D_CG_EXPR, "records 8208 bytes");
	expect_cg_error(t, "#pragma D option strsize=1k\nBEGIN { @a[execname, probefunc, "
			"probename] = count(); }", D_KEY_TYPE, "keys of 3072 bytes");
	expect_cg_error(t, "BEGIN { @l = lquantize(arg0, 0, 10000, 1); }", D_LQUANT_STEPSMALL,
			"10000 levels");

	char *big = malloc(65536);
	REQUIRE(t, big, "no memory");
	size_t n = (size_t)snprintf(big, 65536, "BEGIN {");
	for (int i = 0; i <= DOF_MAX_ACTIONS; i++)
		n += (size_t)snprintf(big + n, 65536 - n, " trace(%d);", i);
	snprintf(big + n, 65536 - n, " }");
	expect_cg_error(t, big, D_CG_EXPR, "too many actions");
	n = (size_t)snprintf(big, 65536, "BEGIN {");
	for (int i = 0; i <= DIF_MAX_VARS; i++)
		n += (size_t)snprintf(big + n, 65536 - n, " v%d = %d;", i, i);
	snprintf(big + n, 65536 - n, " }");
	expect_cg_error(t, big, D_CG_EXPR, "too many variables: v256");
	n = 0;
	for (int i = 0; i <= 64; i++)
		n += (size_t)snprintf(big + n, 65536 - n, "%sfbt::f%d:entry", i ? "," : "", i);
	snprintf(big + n, 65536 - n, " { trace(1); }");
	expect_cg_error(t, big, D_PDESC_INVAL, "65 probe descriptions");
	free(big);

	/*
	 * bufresize=auto (the default) reduces sizes past the kernel's to its
	 * maximum (for aggsize, what its buffers' offsets allow; memory is
	 * the kernel's to judge).
	 */
	struct dt_program *p;
	struct dt_object *obj = d_generate("#pragma D option aggsize=2g\n#pragma D option nspec=2\n"
					   "BEGIN { trace(1); }", &p);
	char why[300];
	REQUIRE(t, obj, "%s", d_first_error(p, why, sizeof(why)));
	CHECK(t, obj->option_set[DOF_OPT_AGGSIZE] && obj->option[DOF_OPT_AGGSIZE] == 1u << 30,
	      "aggsize clamped to 1g: %llu", (unsigned long long)obj->option[DOF_OPT_AGGSIZE]);
	CHECK(t, obj->option_set[DOF_OPT_NSPEC] && obj->option[DOF_OPT_NSPEC] == 2, "nspec 2");
	CHECK(t, !obj->option_set[DOF_OPT_DYNVARSIZE] && !obj->option_set[DOF_OPT_SPECSIZE],
	      "options not set stay out of the object");
	dt_program_free(p);

	/* The front end: errno is a built-in, $target needs -p, and members of a thread kept in a global. */
	p = dt_compile("BEGIN { trace(errno); }", 23, "t.d", 0, NULL, 0);
	CHECK(t, p && p->nerrors == 0, "errno: %s", d_first_error(p, why, sizeof(why)));
	dt_program_free(p);
	p = dt_compile("BEGIN { trace($target); }", 25, "t.d", 0, NULL, 0);
	CHECK(t, p && p->nerrors == 1 && p->errors[0].tag == D_MACRO_UNDEF &&
	      strstr(p->errors[0].message, "-p PID"), "$target without -p: %s",
	      d_first_error(p, why, sizeof(why)));
	dt_program_free(p);
	struct dt_compile_args targeted = { .filename = "t.d", .target = "1234" };
	p = dt_compile_with("BEGIN /pid == $target/ { trace($target + 1); }", 46, &targeted);
	CHECK(t, p && p->nerrors == 0, "$target with -p: %s", d_first_error(p, why, sizeof(why)));
	dt_program_free(p);
	p = dt_compile("BEGIN { t = curthread; trace(t->tid); }", 39, "t.d", 0, NULL, 0);
	CHECK(t, p && p->nerrors == 1 && p->errors[0].tag == D_UNSUPPORTED, "global thread: %s",
	      d_first_error(p, why, sizeof(why)));
	dt_program_free(p);
}

HOST_TEST(d_cg_every_program_verifies)
{
	struct dt_program *p;
	struct dt_object *obj = d_generate(
		"int64_t big; string s; self int n; this string w;"
		"fbt::bcache_read:entry /arg0 > 0x100000000 && execname != \"idle\"/ {"
		" big = arg0 * 0x123456789; s = strjoin(probefunc, probename); self->n++;"
		" this->w = substr(s, 1); @c[s, self->n] = count(); @q = quantize(big);"
		" @l[cpu] = lquantize(arg1, 0, 100, 10); @a = avg(arg1); @d = stddev(arg1);"
		" @mn = min(arg1); @mx = max(arg1); @sm = sum(arg1);"
		" printf(\"%s %d %a\", this->w, self->n, func(arg2)); stack(3); trace(s); }"
		"END { printa(\"%s %d %@d\", @c); clear(@q); trunc(@l, 3); normalize(@a, 10);"
		" denormalize(@a); trunc(@d); exit(big > 0); }", &p);
	char why[300];
	REQUIRE(t, obj, "%s", d_first_error(p, why, sizeof(why)));
	for (uint32_t i = 0; i < obj->nprogs; i++)
		CHECK(t, dif_verify(&obj->progs[i], why, sizeof(why)) == 0, "prog %u: %s", i, why);
	CHECK(t, obj->nclauses == 2 && obj->naggs == 8, "%d clauses, %d aggregations",
	      obj->nclauses, obj->naggs);
	dt_program_free(p);
}
