// SPDX-License-Identifier: BSD-2-Clause
/*
 * Host tests of D's string-searching subroutines from source to result:
 * strstr, strchr, strrchr, index, rindex and strtok compiled by the D
 * compiler and run by the portable interpreter in the fake kernel
 * (d_cg_helpers.c). The answers are DTrace's: its edge cases for empty
 * strings and for a character or substring that is absent (NULL, which
 * compares equal to ""), and for index and rindex Perl's, which DTrace
 * follows position for position (the table below is what perl prints).
 */
#include <stdio.h>
#include <string.h>
#include "host_test.h"
#include "d_cg_helpers.h"

#define NOT_NULL 0
#define IS_NULL 1

/* trace(expr) in BEGIN: its record, false (with why) when it did not compile or faulted. */
static bool trace_value(const char *expr, struct fake_value *rec, char *why, size_t whysize)
{
	char src[600];
	unsigned n;
	snprintf(src, sizeof(src), "BEGIN { trace(%s); }", expr);
	if (d_fire_once(src, rec, 1, &n, why, whysize))
		return false;
	if (n != 1)
		snprintf(why, whysize, "%u records", n);
	return n == 1;
}

HOST_TEST(d_strstr_strchr_strrchr)
{
	static const struct {
		const char *expr;
		int null;
		const char *want;
	} cases[] = {
		{ "strstr(\"foobarbaz\", \"bar\")", NOT_NULL, "barbaz" },
		{ "strstr(\"abab\", \"ab\")", NOT_NULL, "abab" },
		{ "strstr(\"foobar\", \"\")", NOT_NULL, "foobar" },
		{ "strstr(\"\", \"\")", NOT_NULL, "" },
		{ "strstr(\"\", \"a\")", IS_NULL, "" },
		{ "strstr(\"foo\", \"foobar\")", IS_NULL, "" },
		{ "strstr(\"foobar\", \"baz\")", IS_NULL, "" },
		{ "strstr(probefunc, \"_\")", NOT_NULL, "_read" },
		/* illumos's tst.strchr.d */
		{ "strchr(\"fooeyfooeyfoo\", 'f')", NOT_NULL, "fooeyfooeyfoo" },
		{ "strrchr(\"fooeyfooeyfoo\", 'f')", NOT_NULL, "foo" },
		{ "strchr(\"fooeyfooeyfoo\", 'y')", NOT_NULL, "yfooeyfoo" },
		{ "strrchr(\"fooeyfooeyfoo\", 'y')", NOT_NULL, "yfoo" },
		{ "strrchr(strchr(\"fooeyfooeyfoo\", 'y'), 'y')", NOT_NULL, "yfoo" },
		{ "strchr(\"fooeyfooeyfoo\", 'a')", IS_NULL, "" },
		{ "strrchr(\"fooeyfooeyfoo\", 'a')", IS_NULL, "" },
		{ "strchr(\"\", 'a')", IS_NULL, "" },
		/* '\0' finds the end, as in C; a char is 8 bits: 'o' + 256 is 'o' */
		{ "strchr(\"abc\", 0)", NOT_NULL, "" },
		{ "strrchr(\"\", 0)", NOT_NULL, "" },
		{ "strchr(\"foo\", 'o' + 256)", NOT_NULL, "oo" },
		{ "strjoin(strchr(\"a.b.c\", '.'), strrchr(\"a.b.c\", '.'))", NOT_NULL, ".b.c.c" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct fake_value rec;
		char why[300] = "";
		bool ok = trace_value(cases[i].expr, &rec, why, sizeof(why));
		bool is_null = ok && rec.value == 0;
		CHECK(t, ok && rec.is_string && is_null == (cases[i].null == IS_NULL) &&
		      !strcmp(rec.str, cases[i].want), "%s: got %s\"%s\" (%s), want %s\"%s\"",
		      cases[i].expr, is_null ? "NULL " : "", ok ? rec.str : "", why,
		      cases[i].null == IS_NULL ? "NULL " : "", cases[i].want);
	}
}

/* index and rindex without a position, then at -400, -1, 0, len/2, len, len+1, len+2, 400. */
static const int positions = 8;
static const struct {
	const char *s, *sub;
	int index[9], rindex[9];
} perl[] = {
	{ "foobarbaz", "barbaz", { 3, 3, 3, 3, -1, -1, -1, -1, -1 }, { 3, -1, -1, -1, 3, 3, 3, 3, 3 } },
	{ "foofoofoo", "foo", { 0, 0, 0, 0, 6, -1, -1, -1, -1 }, { 6, -1, -1, 0, 3, 6, 6, 6, 6 } },
	{ "boofoofoo", "foo", { 3, 3, 3, 3, 6, -1, -1, -1, -1 }, { 6, -1, -1, -1, 3, 6, 6, 6, 6 } },
	{ "foobarbaz", "barbazzy", { -1, -1, -1, -1, -1, -1, -1, -1, -1 },
	  { -1, -1, -1, -1, -1, -1, -1, -1, -1 } },
	{ "foobar", "foobar", { 0, 0, 0, 0, -1, -1, -1, -1, -1 }, { 0, -1, -1, 0, 0, 0, 0, 0, 0 } },
	{ "foobar", "foobarbaz", { -1, -1, -1, -1, -1, -1, -1, -1, -1 },
	  { -1, -1, -1, -1, -1, -1, -1, -1, -1 } },
	{ "", "foobar", { -1, -1, -1, -1, -1, -1, -1, -1, -1 }, { -1, -1, -1, -1, -1, -1, -1, -1, -1 } },
	{ "foobar", "", { 0, 0, 0, 0, 3, 6, 6, 6, 6 }, { 6, 0, 0, 0, 3, 6, 6, 6, 6 } },
	{ "", "", { 0, 0, 0, 0, 0, 0, 0, 0, 0 }, { 0, 0, 0, 0, 0, 0, 0, 0, 0 } },
	{ "foo", "", { 0, 0, 0, 0, 1, 3, 3, 3, 3 }, { 3, 0, 0, 0, 1, 3, 3, 3, 3 } },
};

HOST_TEST(d_index_rindex_follow_perl)
{
	for (size_t i = 0; i < sizeof(perl) / sizeof(perl[0]); i++) {
		int len = (int)strlen(perl[i].s);
		const int at[] = { -400, -1, 0, len / 2, len, len + 1, len + 2, 400 };
		for (int reverse = 0; reverse < 2; reverse++) {
			for (int p = -1; p < positions; p++) {
				char expr[200], pos[24] = "", why[300] = "";
				struct fake_value rec;
				if (p >= 0)
					snprintf(pos, sizeof(pos), ", %d", at[p]);
				snprintf(expr, sizeof(expr), "%s(\"%s\", \"%s\"%s)",
					 reverse ? "rindex" : "index", perl[i].s, perl[i].sub, pos);
				int want = (reverse ? perl[i].rindex : perl[i].index)[p + 1];
				bool ok = trace_value(expr, &rec, why, sizeof(why));
				CHECK(t, ok && (int64_t)rec.value == want, "%s = %lld (%s), perl says %d",
				      expr, ok ? (long long)rec.value : 0LL, why, want);
			}
		}
	}
}

HOST_TEST(d_strtok_walks_the_tokens)
{
	/* illumos's tst.strtok.d: empty fields are skipped, NULL after the last token. */
	struct fake_value recs[8];
	unsigned n;
	char why[300] = "";
	int rc = d_fire_once("BEGIN { s = \",,,Carrots,,Barley,Oatmeal,,,Beans,\"; "
			     "trace(strtok(s, \",\")); trace(strtok(NULL, \",\")); "
			     "trace(strtok(NULL, \",\")); trace(strtok(NULL, \",\")); "
			     "trace(strtok(NULL, \",\") == NULL); trace(strtok(NULL, \",\") == NULL); }",
			     recs, 8, &n, why, sizeof(why));
	CHECK(t, rc == 0 && n == 6 && !strcmp(recs[0].str, "Carrots") &&
	      !strcmp(recs[1].str, "Barley") && !strcmp(recs[2].str, "Oatmeal") &&
	      !strcmp(recs[3].str, "Beans") && recs[4].value == 1 && recs[5].value == 1,
	      "tokens: rc %d (%s), %u records: %s %s %s %s", rc, why, n, n > 0 ? recs[0].str : "",
	      n > 1 ? recs[1].str : "", n > 2 ? recs[2].str : "", n > 3 ? recs[3].str : "");

	/* Delimiters change from call to call; a new string starts over. */
	rc = d_fire_once("BEGIN { trace(strtok(\"a=b;c=d\", \"=\")); trace(strtok(NULL, \";\")); "
			 "trace(strtok(NULL, \"\")); trace(strtok(\"x y\", \" \")); "
			 "trace(strtok(NULL, \" \")); }", recs, 8, &n, why, sizeof(why));
	CHECK(t, rc == 0 && n == 5 && !strcmp(recs[0].str, "a") && !strcmp(recs[1].str, "=b") &&
	      !strcmp(recs[2].str, ";c=d") && !strcmp(recs[3].str, "x") && !strcmp(recs[4].str, "y"),
	      "changing delimiters: rc %d (%s), %u records", rc, why, n);

	static const struct {
		const char *s1, *s2, *want;
		int null;
	} cases[] = {
		{ "", "", "", IS_NULL },
		{ "foo", "", "foo", NOT_NULL },
		{ "foobar", "o", "f", NOT_NULL },
		{ "oobar", "o", "bar", NOT_NULL },
		{ "foo", "bar", "foo", NOT_NULL },
		{ "", "foo", "", IS_NULL },
		{ ",,,", ",", "", IS_NULL },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char expr[120];
		struct fake_value rec;
		snprintf(expr, sizeof(expr), "strtok(\"%s\", \"%s\")", cases[i].s1, cases[i].s2);
		bool ok = trace_value(expr, &rec, why, sizeof(why));
		CHECK(t, ok && (rec.value == 0) == (cases[i].null == IS_NULL) &&
		      !strcmp(rec.str, cases[i].want), "%s: \"%s\" (%s)", expr, ok ? rec.str : "", why);
	}
	/* strtok(NULL, ...) before any string: NULL (tracing it faults in the kernel). */
	struct fake_value rec;
	CHECK(t, trace_value("strtok(NULL, \"!\")", &rec, why, sizeof(why)) && rec.value == 0,
	      "strtok(NULL) first: %llu (%s)", (unsigned long long)rec.value, why);
}

HOST_TEST(d_null_compares_as_the_empty_string)
{
	static const struct {
		const char *expr;
		uint64_t want;
	} cases[] = {
		{ "strchr(\"abc\", 'z') == NULL", 1 },
		{ "strchr(\"abc\", 'b') != NULL", 1 },
		{ "NULL == strstr(\"abc\", \"x\")", 1 },
		{ "strstr(\"abc\", \"x\") == \"\"", 1 },
		{ "\"\" == NULL", 1 },
		{ "\"a\" > NULL", 1 },
		{ "(this->t = strtok(\"\", \",\")) == NULL", 1 },
		{ "(this->t = strtok(\"\", \",\"), this->t == NULL)", 1 },
		{ "strlen(strjoin(\"x\", (this->u = strstr(\"ab\", \"c\")) == NULL ? \"n\" : this->u))",
		  2 },
		{ "NULL", 0 },
		{ "NULL == 0", 1 },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct fake_value rec;
		char why[300] = "";
		bool ok = trace_value(cases[i].expr, &rec, why, sizeof(why));
		CHECK(t, ok && rec.value == cases[i].want, "%s = %llu (%s), want %llu", cases[i].expr,
		      ok ? (unsigned long long)rec.value : 0ULL, why,
		      (unsigned long long)cases[i].want);
	}
}
