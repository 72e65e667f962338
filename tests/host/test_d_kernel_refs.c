// SPDX-License-Identifier: BSD-2-Clause
/*
 * Host tests of the D compiler's references to the running kernel:
 * caller (a built-in the kernel computes), kernel symbols (`name,
 * kernel`name and &`name, looked up in the symbol list the compile
 * arguments carry: a global before a static of the same name, unknown
 * names and other modules refused), and stack() as an aggregation key
 * (a key of frames x 8 bytes that has no program: the kernel walks it;
 * the stackframes option's depth when stack() has no argument; one depth
 * per aggregation).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "host_test.h"
#include "d_cg_helpers.h"

static const char ksyms[] =
	"ffffffff80100000 T _start\n"
	"ffffffff80119130 t copy\n"
	"ffffffff80119200 T copy\n"
	"ffffffff8016f100 D bcache\n"
	"ffffffff8016f200 0000000000000040 T sized\n"	/* `nm -S`: with its size */
	"ffffffff80170000 b static_only\n"
	"garbage line\n"
	"ffffffff80180000 R last_without_newline";

static struct dt_program *compile(const char *src, const char *symbols)
{
	struct dt_compile_args args = { .filename = "k.d", .ksyms = symbols };
	return dt_compile_with(src, strlen(src), &args);
}

HOST_TEST(d_caller_is_a_builtin_the_kernel_fills)
{
	struct fake_value rec;
	unsigned n;
	char why[300] = "";
	int rc = d_fire_once("fbt::bcache_read:entry { trace(caller); }", &rec, 1, &n, why,
			     sizeof(why));
	CHECK(t, rc == 0 && n == 1 && rec.value == 1000 + DIF_VAR_CALLER, "caller: %llu (%s)",
	      (unsigned long long)rec.value, why);
	rc = d_fire_once("BEGIN { trace(func(caller)); }", &rec, 1, &n, why, sizeof(why));
	CHECK(t, rc == 0 && n == 1 && rec.value == 1000 + DIF_VAR_CALLER, "func(caller) (%s)", why);
	struct dt_program *p = compile("BEGIN { caller = 1; }", NULL);
	CHECK(t, p && p->nerrors == 1 && p->errors[0].tag == D_OP_WRITE, "caller is not writable");
	dt_program_free(p);
}

HOST_TEST(d_kernel_symbols_are_addresses)
{
	static const struct {
		const char *expr;
		uint64_t want;
	} cases[] = {
		{ "`bcache", 0xffffffff8016f100ull },
		{ "&`bcache", 0xffffffff8016f100ull },
		{ "kernel`bcache", 0xffffffff8016f100ull },
		{ "&kernel`bcache + 8", 0xffffffff8016f108ull },
		{ "`copy", 0xffffffff80119200ull },		/* the global, not the static */
		{ "`sized", 0xffffffff8016f200ull },
		{ "`static_only", 0xffffffff80170000ull },
		{ "`last_without_newline", 0xffffffff80180000ull },
		{ "`_start", 0xffffffff80100000ull },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char src[200];
		snprintf(src, sizeof(src), "BEGIN { trace(%s); }", cases[i].expr);
		struct dt_program *p = compile(src, ksyms);
		const struct dt_node *v = p && !p->nerrors ? p->clauses->stmts->args : NULL;
		CHECK(t, v && v->kind == DT_N_INT && v->value == cases[i].want &&
		      v->type.kind == DT_TYPE_INT && !v->type.is_signed, "%s: %s %#llx", cases[i].expr,
		      p && p->nerrors ? p->errors[0].message : "",
		      v ? (unsigned long long)v->value : 0ULL);
		dt_program_free(p);
	}
	static const struct {
		const char *src, *symbols;
		enum dt_errtag tag;
		const char *text;
	} refused[] = {
		{ "BEGIN { trace(`nosuch); }", ksyms, D_IDENT_UNDEF, "`nosuch: no such kernel symbol" },
		{ "BEGIN { trace(&unix`bcache); }", ksyms, D_IDENT_UNDEF, "only module is kernel" },
		{ "BEGIN { trace(`bcache); }", NULL, D_UNSUPPORTED, "need the kernel's symbol list" },
		{ "BEGIN { trace(`0x10); }", ksyms, D_SYNTAX, "a kernel symbol's name" },
		{ "BEGIN { x = 1; trace(&x); }", ksyms, D_ADDROF_VAR, "address of dynamic variable" },
		{ "BEGIN { trace(`garbage); }", ksyms, D_IDENT_UNDEF, "no such kernel symbol" },
	};
	for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
		struct dt_program *p = compile(refused[i].src, refused[i].symbols);
		CHECK(t, p && p->nerrors >= 1 && p->errors[0].tag == refused[i].tag &&
		      strstr(p->errors[0].message, refused[i].text), "%s: %s %s", refused[i].src,
		      p && p->nerrors ? dt_errtag_name(p->errors[0].tag) : "compiled",
		      p && p->nerrors ? p->errors[0].message : "");
		dt_program_free(p);
	}
}

HOST_TEST(d_stack_keys_have_no_program)
{
	struct dt_program *p = compile(
		"#pragma D option stackframes=5\n"
		"fbt::bcache_read:entry { @s[probefunc, stack(3), arg0] = sum(arg1); "
		"@d[stack()] = quantize(arg0, 2); @s[\"x\", stack(3), 1] = sum(2); }", NULL);
	struct dt_object *obj = NULL;
	REQUIRE(t, p && !p->nerrors && dt_generate(p, &obj) == 0, "%s",
		p && p->nerrors ? p->errors[0].message : "no object");
	const struct dt_agg_code *s = &obj->aggs[0], *d = &obj->aggs[1];
	CHECK(t, s->nkeys == 3 && s->keys[1].kind == DT_DATUM_STACK && s->keys[1].frames == 3 &&
	      s->keys[1].size == 24 && s->keys[1].offset == 256 && s->keys[2].offset == 280 &&
	      s->keybytes == 288, "@s keys: frames %u, size %u, offsets %u %u, %u bytes",
	      s->keys[1].frames, s->keys[1].size, s->keys[1].offset, s->keys[2].offset, s->keybytes);
	CHECK(t, d->nkeys == 1 && d->keys[0].frames == 5 && d->keybytes == 40,
	      "stack() takes stackframes: %u frames", d->keys[0].frames);
	const struct dt_clause_code *cc = &obj->clauses[0];
	REQUIRE(t, cc->nkactions == 3, "%d actions", cc->nkactions);
	CHECK(t, cc->kactions[0].nprogs == 3 && cc->kactions[1].nprogs == 2 &&
	      cc->kactions[2].nprogs == 3, "programs: %u %u %u (stack keys have none)",
	      cc->kactions[0].nprogs, cc->kactions[1].nprogs, cc->kactions[2].nprogs);
	CHECK(t, !(cc->flags & DOF_CLAUSE_RECORD), "aggregating clause records nothing");
	struct fake_kernel k;
	fake_kernel_init(&k);
	k.builtin[DIF_VAR_ARG0] = 7;
	k.builtin[DIF_VAR_ARG1] = 9;
	REQUIRE(t, fake_fire(&k, obj, 0) == 0, "fault");
	CHECK(t, k.naggs == 3 && !strcmp(k.aggs[0].keys[0].str, "bcache_read") &&
	      k.aggs[0].keys[1].value == 0 && k.aggs[0].keys[2].value == 7 && k.aggs[0].value == 9 &&
	      k.aggs[1].value == 7 && k.aggs[1].incr == 2 && k.aggs[2].keys[2].value == 1,
	      "updates: %u, key %llu, value %llu", k.naggs, (unsigned long long)k.aggs[0].keys[2].value,
	      (unsigned long long)k.aggs[0].value);
	fake_kernel_reset(&k);
	char *json = dt_object_json(obj);
	CHECK(t, json && strstr(json, "\"keys\":[{\"type\":\"string\"") &&
	      strstr(json, "{\"type\":\"stack\",\"size\":24,\"signed\":false,\"width\":8,\"sym\":\"none\","
		     "\"frames\":3}"), "JSON of the stack key");
	free(json);
	dt_program_free(p);
	static const struct {
		const char *src;
		enum dt_errtag tag;
		const char *text;
	} refused[] = {
		{ "BEGIN { @[stack(2)] = count(); } END { @[stack(3)] = count(); }", D_PROTO_ARG,
		  "expected stack(2), got stack(3)" },
		{ "BEGIN { @[stack(65)] = count(); }", D_STACK_SIZE, "from 1 to 64 in an aggregation" },
		{ "BEGIN { @[stack(0)] = count(); }", D_STACK_SIZE, "from 1 to 64 in an aggregation" },
		{ "BEGIN { @[stack(arg0)] = count(); }", D_STACK_SIZE, "integer constant" },
		{ "BEGIN { @[stack(1, 2)] = count(); }", D_STACK_PROTO, "prototype mismatch" },
		{ "BEGIN { a[stack()] = 1; }", D_CG_EXPR, "is an action" },
		{ "BEGIN { trace(stack()); }", D_CG_EXPR, "is an action" },
		{ "BEGIN { @[stack()] = count(); printa(\"%d %@d\", @); }", D_PRINTF_ARG_TYPE,
		  "argument: stack()" },
		{ "BEGIN { @[1] = count(); @[stack()] = count(); }", D_PROTO_ARG,
		  "expected int, got stack()" },
	};
	for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
		struct dt_program *q = compile(refused[i].src, NULL);
		CHECK(t, q && q->nerrors >= 1 && q->errors[0].tag == refused[i].tag &&
		      strstr(q->errors[0].message, refused[i].text), "%s: %s %s", refused[i].src,
		      q && q->nerrors ? dt_errtag_name(q->errors[0].tag) : "compiled",
		      q && q->nerrors ? q->errors[0].message : "");
		dt_program_free(q);
	}
}
