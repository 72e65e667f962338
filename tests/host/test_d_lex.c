// SPDX-License-Identifier: BSD-2-Clause
/*
 * Host tests of the D lexer (host/dtrace/dt_lex.c): operators with
 * longest match, literals and escapes, locations across lines and line
 * markers, the context-sensitive probe descriptions, aggregations and
 * macro arguments, malformed tokens, and never reading past the end of a
 * source that is not NUL-terminated.
 */
#include <stdlib.h>
#include <string.h>
#include "host_test.h"
#include "dt_impl.h"

#define MAX_TOKENS 64

struct lexed {
	struct dt_program *prog;	/* owns the arena the tokens live in */
	struct dt_ctx ctx;
	struct dt_token tok[MAX_TOKENS];
	int n;
};

static const char *const test_argv[] = { "5", "foo", "a b", "-7" };

/*
 * Lex src[0..len) to the end: the first token in first_mode, the rest
 * NORMAL (or PDESC after a ',' when pdesc_lists).
 */
static void lex(struct lexed *l, const char *src, size_t len, enum dt_lex_mode first_mode,
		bool pdesc_lists)
{
	struct dt_lexer lx;

	memset(l, 0, sizeof(*l));
	l->prog = dt_compile("", 0, "t.d", 0, NULL, 0);	/* just for its arena */
	l->prog->nerrors = 0;
	l->ctx = (struct dt_ctx){ .prog = l->prog, .filename = "t.d", .argc = 4,
				  .argv = test_argv };
	if (setjmp(l->ctx.nomem))
		abort();
	l->ctx.arg_used = dt_alloc(&l->ctx, 5 * sizeof(bool));
	dt_lex_init(&lx, &l->ctx, src, len);
	enum dt_lex_mode mode = first_mode;
	while (l->n < MAX_TOKENS) {
		struct dt_token *t = &l->tok[l->n++];
		dt_lex_next(&lx, mode, t);
		if (t->kind == T_EOF)
			break;
		mode = pdesc_lists && t->kind == T_COMMA ? DT_LEX_PDESC : DT_LEX_NORMAL;
	}
}

static void lex_str(struct lexed *l, const char *src, enum dt_lex_mode mode)
{
	lex(l, src, strlen(src), mode, mode != DT_LEX_NORMAL);
}

static void done(struct lexed *l)
{
	dt_program_free(l->prog);
}

HOST_TEST(d_lex_operators_longest_match)
{
	static const enum dt_tok want[] = {
		T_IDENT, T_ARROW, T_IDENT, T_INC, T_DEC, T_SHL_ASSIGN, T_SHR_ASSIGN, T_SHL, T_SHR,
		T_LE, T_GE, T_EQ, T_NE, T_LAND, T_LOR, T_LXOR, T_ADD_ASSIGN, T_SUB_ASSIGN,
		T_MUL_ASSIGN, T_DIV_ASSIGN, T_MOD_ASSIGN, T_AND_ASSIGN, T_OR_ASSIGN, T_XOR_ASSIGN,
		T_QUESTION, T_COLON, T_COMMA, T_SEMI, T_PLUS, T_MINUS, T_LT, T_GT, T_ASSIGN, T_BANG,
		T_TILDE, T_CARET, T_PIPE, T_AMP, T_PERCENT, T_STAR, T_SLASH, T_DOT, T_BACKQUOTE,
		T_LPAREN, T_RPAREN, T_LBRACKET, T_RBRACKET, T_LBRACE, T_RBRACE, T_INC, T_PLUS,
		T_EOF,
	};
	struct lexed l;
	lex_str(&l, "a->b ++ -- <<= >>= << >> <= >= == != && || ^^ += -= *= /= %= &= |= ^= "
		"? : , ; + - < > = ! ~ ^ | & % * / . ` ( ) [ ] { } +++", DT_LEX_NORMAL);
	int n = (int)(sizeof(want) / sizeof(want[0]));
	CHECK(t, l.n == n, "%d tokens, want %d", l.n, n);
	for (int i = 0; i < n && i < l.n; i++)
		CHECK(t, l.tok[i].kind == want[i], "token %d: kind %d, want %d", i, l.tok[i].kind,
		      want[i]);
	CHECK(t, l.prog->nerrors == 0, "no errors");
	done(&l);
}

HOST_TEST(d_lex_keywords_and_identifiers)
{
	struct lexed l;
	lex_str(&l, "self this string int unsigned translator inline sizeof selfish _x9 "
		"uint64_t", DT_LEX_NORMAL);
	CHECK(t, l.tok[0].kind == T_KW_SELF && l.tok[1].kind == T_KW_THIS, "self this");
	CHECK(t, l.tok[2].kind == T_KW_STRING && l.tok[3].kind == T_KW_INT &&
	      l.tok[4].kind == T_KW_UNSIGNED, "type keywords");
	CHECK(t, l.tok[5].kind == T_KW_TRANSLATOR && l.tok[6].kind == T_KW_INLINE &&
	      l.tok[7].kind == T_KW_SIZEOF, "refused keywords are still keywords");
	CHECK(t, l.tok[8].kind == T_IDENT && !strcmp(l.tok[8].text, "selfish"),
	      "a keyword prefix is an identifier");
	CHECK(t, l.tok[9].kind == T_IDENT && l.tok[9].len == 3, "_x9");
	CHECK(t, l.tok[10].kind == T_IDENT, "typedef names are identifiers in expressions");
	done(&l);
}

HOST_TEST(d_lex_integer_literals)
{
	struct lexed l;
	lex_str(&l, "0 42 0x2A 052 42u 42ULL 42lu 18446744073709551615u 0x8000000000000000 'a' "
		"'\\n' '\\x41' '\\101' '\\'' 2147483648 0xffffffff 0x100000000U 9223372036854775807 "
		"5ll", DT_LEX_NORMAL);
	/* dtrace's types: int, unsigned int, long, unsigned long, long long, unsigned long long. */
	static const struct {
		uint64_t value;
		uint8_t size;
		bool is_signed, is_llong;
	} want[] = {
		{ 0, 4, true, false }, { 42, 4, true, false }, { 42, 4, true, false },
		{ 42, 4, true, false }, { 42, 4, false, false }, { 42, 8, false, true },
		{ 42, 8, false, false }, { UINT64_MAX, 8, false, false },
		{ 1ull << 63, 8, false, false }, { 'a', 4, true, false }, { '\n', 4, true, false },
		{ 0x41, 4, true, false }, { 0101, 4, true, false }, { '\'', 4, true, false },
		{ 1ull << 31, 8, true, false }, { UINT32_MAX, 4, false, false },
		/* dtrace's quirk: only a lower-case u keeps a hex constant unsigned */
		{ 1ull << 32, 8, true, false }, { INT64_MAX, 8, true, false }, { 5, 8, true, true },
	};
	for (int i = 0; i < (int)(sizeof(want) / sizeof(want[0])); i++) {
		CHECK(t, l.tok[i].kind == T_INT, "token %d is an integer (kind %d)", i,
		      l.tok[i].kind);
		CHECK(t, l.tok[i].value == want[i].value, "token %d: %llu, want %llu", i,
		      (unsigned long long)l.tok[i].value, (unsigned long long)want[i].value);
		CHECK(t, l.tok[i].type.size == want[i].size &&
		      l.tok[i].type.is_signed == want[i].is_signed &&
		      l.tok[i].type.is_llong == want[i].is_llong, "token %d: type", i);
	}
	done(&l);

	/* A decimal constant above LONG_MAX has no type: dtrace refuses it. */
	lex_str(&l, "18446744073709551615", DT_LEX_NORMAL);
	CHECK(t, l.tok[0].kind == T_ERROR && l.prog->nerrors == 1 &&
	      l.prog->errors[0].tag == D_INT_OFLOW && !strcmp(l.prog->errors[0].message,
	      "integer constant 0xffffffffffffffff cannot be represented in any built-in "
	      "integral type"), "decimal 2^64-1: %s", l.prog->nerrors ?
	      l.prog->errors[0].message : "no error");
	done(&l);

	uint64_t v;
	struct dt_type ty;
	bool typed, over;
	CHECK(t, !dt_parse_int_literal("08", 2, &v, &ty, &typed, &over), "08 is not octal");
	CHECK(t, !dt_parse_int_literal("0x", 2, &v, &ty, &typed, &over), "0x has no digits");
	CHECK(t, !dt_parse_int_literal("1uu", 3, &v, &ty, &typed, &over), "one u only");
	CHECK(t, !dt_parse_int_literal("1lll", 4, &v, &ty, &typed, &over), "l or ll only");
	CHECK(t, !dt_parse_int_literal("1lL", 3, &v, &ty, &typed, &over), "ll has one case");
	CHECK(t, dt_parse_int_literal("1Lu", 3, &v, &ty, &typed, &over) && typed &&
	      !ty.is_signed && ty.size == 8 && v == 1, "Lu");
	CHECK(t, dt_parse_int_literal("18446744073709551616", 20, &v, &ty, &typed, &over) && over,
	      "2^64 overflows");
	CHECK(t, dt_parse_int_literal("0xfffffffffffffffff", 19, &v, &ty, &typed, &over) && over,
	      "17 hex digits overflow");
}

HOST_TEST(d_lex_strings_and_escapes)
{
	struct lexed l;
	lex_str(&l, "\"a\\tb\\x41\\101\\0z\" \"\" \"q\\\"\\\\\"", DT_LEX_NORMAL);
	REQUIRE(t, l.tok[0].kind == T_STRING, "string");
	CHECK(t, l.tok[0].len == 7 && !memcmp(l.tok[0].text, "a\tbAA\0z", 7),
	      "decoded bytes, NUL kept (len %zu)", l.tok[0].len);
	CHECK(t, l.tok[1].kind == T_STRING && l.tok[1].len == 0, "empty string");
	CHECK(t, l.tok[2].kind == T_STRING && l.tok[2].len == 3 &&
	      !memcmp(l.tok[2].text, "q\"\\", 3), "escaped quote and backslash");
	done(&l);
}

HOST_TEST(d_lex_locations)
{
	struct lexed l;
	lex_str(&l, "a\n\tbb /* x\ny */ c\n// z\n#line 40 \"other.d\"\nd\n# 7 \"cpp.d\" 2\n  e",
		DT_LEX_NORMAL);
	static const struct {
		const char *file;
		int line, column;
	} want[] = {
		{ "t.d", 1, 1 }, { "t.d", 2, 2 }, { "t.d", 3, 6 }, { "other.d", 40, 1 },
		{ "cpp.d", 7, 3 },
	};
	for (int i = 0; i < 5; i++) {
		CHECK(t, l.tok[i].kind == T_IDENT, "token %d is an identifier", i);
		CHECK(t, !strcmp(l.tok[i].loc.file, want[i].file) &&
		      l.tok[i].loc.line == want[i].line && l.tok[i].loc.column == want[i].column,
		      "token %d at %s:%d:%d, want %s:%d:%d", i, l.tok[i].loc.file, l.tok[i].loc.line,
		      l.tok[i].loc.column, want[i].file, want[i].line, want[i].column);
	}
	CHECK(t, l.tok[5].kind == T_EOF, "then the end");
	CHECK(t, l.prog->nerrors == 0, "no errors");
	done(&l);
}

HOST_TEST(d_lex_probe_descriptions_by_context)
{
	struct lexed l;
	lex_str(&l, "fbt::bcache_*:entry, tick-1s,profile-97/x/{", DT_LEX_CLAUSE_START);
	CHECK(t, l.tok[0].kind == T_PDESC && !strcmp(l.tok[0].text, "fbt::bcache_*:entry"),
	      "a description at a clause start");
	CHECK(t, l.tok[1].kind == T_COMMA, "comma");
	CHECK(t, l.tok[2].kind == T_PDESC && !strcmp(l.tok[2].text, "tick-1s"),
	      "a description after a comma");
	CHECK(t, l.tok[4].kind == T_PDESC && !strcmp(l.tok[4].text, "profile-97"),
	      "stops at '/'");
	CHECK(t, l.tok[5].kind == T_SLASH && l.tok[6].kind == T_IDENT && l.tok[7].kind == T_SLASH &&
	      l.tok[8].kind == T_LBRACE, "then a predicate lexed normally");
	done(&l);

	lex_str(&l, "int x;", DT_LEX_CLAUSE_START);
	CHECK(t, l.tok[0].kind == T_KW_INT, "a keyword at a clause start starts a declaration");
	done(&l);
	lex_str(&l, "uint64_t x;", DT_LEX_CLAUSE_START);
	CHECK(t, l.tok[0].kind == T_IDENT && !strcmp(l.tok[0].text, "uint64_t"),
	      "so does a typedef name");
	done(&l);
	lex_str(&l, "insn::bcache_read+0x10: fbt::[!a-c]*:entry", DT_LEX_CLAUSE_START);
	CHECK(t, l.tok[0].kind == T_PDESC && !strcmp(l.tok[0].text, "insn::bcache_read+0x10:"),
	      "function+offset");
	done(&l);
	lex_str(&l, "fbt::$2:entry fbt::$$3:x", DT_LEX_CLAUSE_START);
	CHECK(t, l.tok[0].kind == T_PDESC && !strcmp(l.tok[0].text, "fbt::foo:entry"),
	      "macro argument expanded in a description: %s", l.tok[0].text);
	done(&l);
	lex_str(&l, "fbt::bcache_read:entry", DT_LEX_NORMAL);
	CHECK(t, l.tok[0].kind == T_IDENT && l.tok[1].kind == T_COLON && l.tok[2].kind == T_COLON,
	      "in an expression the same text is identifiers and colons");
	done(&l);
}

HOST_TEST(d_lex_aggregations_and_macros)
{
	struct lexed l;
	lex_str(&l, "@a @ @_x9 $1 $2 $$3 $$1 $4 $0", DT_LEX_NORMAL);
	CHECK(t, l.tok[0].kind == T_AGG && !strcmp(l.tok[0].text, "a"), "@a");
	CHECK(t, l.tok[1].kind == T_AGG && l.tok[1].len == 0, "bare @");
	CHECK(t, l.tok[2].kind == T_AGG && !strcmp(l.tok[2].text, "_x9"), "@_x9");
	CHECK(t, l.tok[3].kind == T_INT && l.tok[3].value == 5, "$1 is the integer 5");
	CHECK(t, l.tok[4].kind == T_IDENT && !strcmp(l.tok[4].text, "foo"),
	      "$2 is the identifier foo");
	CHECK(t, l.tok[5].kind == T_STRING && !strcmp(l.tok[5].text, "a b"), "$$3 is a string");
	CHECK(t, l.tok[6].kind == T_STRING && !strcmp(l.tok[6].text, "5"), "$$1 is \"5\"");
	CHECK(t, l.tok[7].kind == T_INT && (int64_t)l.tok[7].value == -7 &&
	      l.tok[7].type.is_signed && l.tok[7].type.size == 4, "$4 is the int -7");
	CHECK(t, l.tok[8].kind == T_ERROR, "$0 (t.d) is neither an integer nor an identifier");
	CHECK(t, l.ctx.arg_used[1] && l.ctx.arg_used[2] && l.ctx.arg_used[3] && l.ctx.arg_used[4],
	      "uses are recorded");
	CHECK(t, l.prog->nerrors == 1 && l.prog->errors[0].tag == D_MACRO_BADARG, "one error");
	done(&l);

	lex_str(&l, "$5 $pid", DT_LEX_NORMAL);
	CHECK(t, l.tok[0].kind == T_ERROR && l.tok[1].kind == T_ERROR, "both refused");
	CHECK(t, l.prog->nerrors == 2 && l.prog->errors[0].tag == D_MACRO_UNDEF &&
	      l.prog->errors[1].tag == D_UNSUPPORTED, "undefined $5, unsupported $pid");
	CHECK(t, strstr(l.prog->errors[0].message, "$5 is not defined") != NULL, "message: %s",
	      l.prog->errors[0].message);
	done(&l);
}

HOST_TEST(d_lex_malformed_tokens)
{
	static const struct {
		const char *src;
		enum dt_errtag tag;
	} cases[] = {
		{ "\"abc", D_STR_NL }, { "\"ab\ncd\"", D_STR_NL }, { "'a", D_CHR_NL },
		{ "''", D_CHR_NULL }, { "'ab'", D_CHR_OFLOW }, { "/* x", D_SYNTAX },
		{ "09", D_INT_DIGIT }, { "1.5", D_UNSUPPORTED }, { "\x01", D_SYNTAX },
		{ "#include <x>", D_PRAGCTL_INVAL }, { "#foo", D_PRAGCTL_INVAL },
		{ "\"\\x\"", D_SYNTAX }, { "99999999999999999999", D_INT_OFLOW },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct lexed l;
		lex_str(&l, cases[i].src, DT_LEX_NORMAL);
		CHECK(t, l.prog->nerrors >= 1 && l.prog->errors[0].tag == cases[i].tag,
		      "case %zu (%s): %d errors, first tag %s", i, cases[i].src, l.prog->nerrors,
		      l.prog->nerrors ? dt_errtag_name(l.prog->errors[0].tag) : "none");
		CHECK(t, l.tok[l.n - 1].kind == T_EOF, "case %zu ends with EOF", i);
		done(&l);
	}
}

HOST_TEST(d_lex_stays_inside_the_source)
{
	/* Exact-size copies (no NUL after them): ASan reports any read past the end. */
	static const char *const srcs[] = {
		"BEGIN{trace(\"ab", "x /* never", "'\\", "\"\\", "0x", "@", "$", "$$", "#pragma D",
		"#line 5 \"f", "a-", "fbt::x", "1u", "\"a\\x4", "'\\12",
	};
	for (size_t i = 0; i < sizeof(srcs) / sizeof(srcs[0]); i++) {
		size_t len = strlen(srcs[i]);
		char *copy = malloc(len);
		memcpy(copy, srcs[i], len);
		struct lexed l;
		lex(&l, copy, len, DT_LEX_CLAUSE_START, false);
		CHECK(t, l.tok[l.n - 1].kind == T_EOF, "case %zu reaches the end", i);
		done(&l);
		lex(&l, copy, len, DT_LEX_NORMAL, false);
		done(&l);
		free(copy);
	}
}
