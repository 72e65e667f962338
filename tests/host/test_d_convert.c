// SPDX-License-Identifier: BSD-2-Clause
/*
 * Host tests of D's converting subroutines from source to result:
 * toupper, tolower, strtoll, cleanpath and htons ... ntohll compiled by
 * the D compiler and run by the portable interpreter in the fake kernel
 * (d_cg_helpers.c). The C library is the reference where it has the
 * same function: <ctype.h>'s toupper and tolower in the C locale, its
 * strtoll wherever DTrace's parse agrees with it (no overflow, which
 * DTrace wraps and C clamps; only spaces and tabs before the number),
 * <endian.h>'s htobe16 ... be64toh. cleanpath's answers are DTrace's
 * textual rules, worked out by hand.
 */
#include <ctype.h>
#include <endian.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "host_test.h"
#include "d_cg_helpers.h"

/* s as a D string literal: every byte that is not plain printable ASCII as \xNN. */
static void d_literal(const char *s, char *out, size_t size)
{
	size_t k = 0;
	out[k++] = '"';
	for (; *s && k + 6 < size; s++) {
		unsigned char c = (unsigned char)*s;
		if (c >= 0x20 && c < 0x7f && c != '"' && c != '\\')
			out[k++] = (char)c;
		else
			k += (size_t)snprintf(out + k, size - k, "\\x%02x", c);
	}
	out[k++] = '"';
	out[k] = '\0';
}

/* The one record of `pragmas BEGIN { trace(expr); }`; false (with why) if it failed. */
static bool trace_one(const char *pragmas, const char *expr, struct fake_value *rec, char *why,
		      size_t whysize)
{
	char src[2400];
	unsigned n;
	snprintf(src, sizeof(src), "%sBEGIN { trace(%s); }", pragmas, expr);
	if (d_fire_once(src, rec, 1, &n, why, whysize))
		return false;
	if (n != 1)
		snprintf(why, whysize, "%u records", n);
	return n == 1;
}

HOST_TEST(d_toupper_tolower_every_byte)
{
	/* Bytes 1..255: 255 of them, exactly what the default strsize (256) holds. */
	char bytes[256], lit[1400], expr[1500], why[300] = "";
	for (int i = 1; i < 256; i++)
		bytes[i - 1] = (char)i;
	bytes[255] = '\0';
	d_literal(bytes, lit, sizeof(lit));
	for (int upper = 0; upper < 2; upper++) {
		struct fake_value rec;
		snprintf(expr, sizeof(expr), "%s(%s)", upper ? "toupper" : "tolower", lit);
		bool ok = trace_one("", expr, &rec, why, sizeof(why));
		CHECK(t, ok && rec.is_string && strlen(rec.str) == 255, "%s: %s, length %zu",
		      upper ? "toupper" : "tolower", why, ok ? strlen(rec.str) : 0);
		if (!ok)
			continue;
		int wrong = 0;
		for (int i = 1; i < 256 && !wrong; i++) {
			int want = upper ? toupper(i) : tolower(i);	/* the C locale: ASCII only */
			if ((unsigned char)rec.str[i - 1] != want)
				wrong = i;
		}
		CHECK(t, !wrong, "%s of byte %d gave %d", upper ? "toupper" : "tolower", wrong,
		      wrong ? (unsigned char)rec.str[wrong - 1] : 0);
	}

	static const struct {
		const char *pragmas, *expr, *want;
	} cases[] = {
		{ "", "toupper(\"\")", "" },
		{ "", "tolower(\"\")", "" },
		{ "", "toupper(execname)", "KWORKER" },
		{ "", "tolower(\"Hello, World 42!\")", "hello, world 42!" },
		{ "", "toupper(tolower(\"MiXeD\"))", "MIXED" },
		{ "", "strjoin(toupper(\"ab\"), tolower(\"CD\"))", "ABcd" },
		/* strsize 16: 15 bytes fit whole, longer strings are cut to 15 */
		{ "#pragma D option strsize=16\n", "toupper(\"abcdefghijklmno\")", "ABCDEFGHIJKLMNO" },
		{ "#pragma D option strsize=16\n", "toupper(\"abcdefghijklmnop\")", "ABCDEFGHIJKLMNO" },
		{ "#pragma D option strsize=16\n", "tolower(\"ABCDEFGHIJKLMNOPQRST\")",
		  "abcdefghijklmno" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct fake_value rec;
		bool ok = trace_one(cases[i].pragmas, cases[i].expr, &rec, why, sizeof(why));
		CHECK(t, ok && rec.is_string && !strcmp(rec.str, cases[i].want),
		      "%s: got \"%s\" (%s), want \"%s\"", cases[i].expr, ok ? rec.str : "", why,
		      cases[i].want);
	}
}

/* strtoll(s, base) (base < 0: no base given) as the fake kernel runs it; false if it failed. */
static bool d_strtoll(const char *s, int base, int64_t *v, char *why, size_t whysize)
{
	char lit[400], expr[460], b[24] = "";
	struct fake_value rec;
	d_literal(s, lit, sizeof(lit));
	if (base >= 0)
		snprintf(b, sizeof(b), ", %d", base);
	snprintf(expr, sizeof(expr), "strtoll(%s%s)", lit, b);
	if (!trace_one("", expr, &rec, why, whysize))
		return false;
	*v = (int64_t)rec.value;
	return true;
}

HOST_TEST(d_strtoll_agrees_with_c)
{
	static const char *const strings[] = {
		"0", "1", "-1", "+42", "  17", "\t-23", " \t +5", "123abc", "abc", "ABC", "zz",
		"0x1f", "0X1F", "-0x1f", "0x", "0xg", "010", "08", "0777", "-0777", "101010", "12j",
		"102", "baddcafe", "7fffffffffffffff", "9223372036854775807",
		"-9223372036854775808", "", "-", "+", " ", "- 1", "--1", "1 2", "Scion",
		"4294967296", "-4294967297",
	};
	static const int bases[] = { -1, 0, 2, 3, 8, 10, 16, 35, 36 };
	int compared = 0;
	for (size_t i = 0; i < sizeof(strings) / sizeof(strings[0]); i++) {
		for (size_t j = 0; j < sizeof(bases) / sizeof(bases[0]); j++) {
			int base = bases[j];
			errno = 0;
			long long want = strtoll(strings[i], NULL, base < 0 ? 10 : base);
			if (errno == ERANGE)
				continue;	/* C clamps, DTrace wraps: below */
			char why[300] = "";
			int64_t got = 0;
			bool ok = d_strtoll(strings[i], base, &got, why, sizeof(why));
			CHECK(t, ok && got == want, "strtoll(\"%s\", %d) = %lld (%s), C says %lld",
			      strings[i], base, (long long)got, why, want);
			compared++;
		}
	}
	CHECK(t, compared > 300, "only %d cases compared with C", compared);

	/* Where DTrace differs from C, DTrace's answers (illumos's tst.strtoll.d for the wrap). */
	static const struct {
		const char *s;
		int base;
		int64_t want;
	} dtrace[] = {
		{ "1000000000000000000000", 8, INT64_MIN },		/* 8^21 = 2^63 wraps */
		{ "-1000000000000000000001", 8, INT64_MAX },
		{ "18446744073709551617", 10, 1 },			/* 2^64 + 1 */
		{ "\n5", 10, 0 },		/* only spaces and tabs are skipped */
		{ "\r5", -1, 0 },
		{ "0x20", 16, 32 },
		{ "-32", 10, -32 },
		{ "010", 8, 8 },
		{ "0x10", 0, 16 },
		{ "010", 0, 8 },
		{ "10", 0, 10 },
		{ "-0x10", 0, -16 },
		{ "1", 36, 1 },
		{ "0", 2, 0 },
		{ "0b101", 0, 0 },		/* no C23 binary prefix */
		{ "0b101", 2, 0 },
	};
	for (size_t i = 0; i < sizeof(dtrace) / sizeof(dtrace[0]); i++) {
		char why[300] = "";
		int64_t got = 0;
		bool ok = d_strtoll(dtrace[i].s, dtrace[i].base, &got, why, sizeof(why));
		CHECK(t, ok && got == dtrace[i].want, "strtoll(%zu, %d) = %lld (%s), want %lld", i,
		      dtrace[i].base, (long long)got, why, (long long)dtrace[i].want);
	}

	/* strsize 8: only the first 7 bytes are read. */
	struct fake_value rec;
	char why[300] = "";
	bool ok = trace_one("#pragma D option strsize=8\n", "strtoll(\"123456789\")", &rec, why,
			    sizeof(why));
	CHECK(t, ok && rec.value == 1234567, "strsize 8: %lld (%s)", (long long)rec.value, why);
	ok = trace_one("#pragma D option strsize=8\n", "strtoll(\"1234567\")", &rec, why,
		       sizeof(why));
	CHECK(t, ok && rec.value == 1234567, "strsize 8, 7 digits: %lld (%s)", (long long)rec.value,
	      why);
}

HOST_TEST(d_strtoll_bad_base_faults)
{
	/* Bases 1 and past 36 are DTrace's illegal operation: a bad argument naming the base. */
	static const int64_t bad[] = { 1, 37, 64, -1, -36 };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		static const int64_t args[D_NARGS];
		char src[120], why[300] = "";
		struct fake_kernel *k = calloc(1, sizeof(*k));
		fake_kernel_init(k);
		snprintf(src, sizeof(src), "BEGIN { trace(strtoll(\"10\", %lld)); }",
			 (long long)bad[i]);
		int rc = d_run(src, args, k, why, sizeof(why));
		CHECK(t, rc == -1 && k->fault.kind == DIF_FAULT_BADARG &&
		      k->fault.addr == (uint64_t)bad[i] && k->nrecords == 0,
		      "base %lld: rc %d (%s), addr %llx, %u records", (long long)bad[i], rc, why,
		      (unsigned long long)k->fault.addr, k->nrecords);
		fake_kernel_reset(k);
		free(k);
	}
	/* The base may come from a variable: the check is the kernel's, at run time. */
	static const int64_t args[D_NARGS] = { 37 };
	uint64_t v;
	char why[300] = "";
	CHECK(t, !d_eval("strtoll(\"10\", arg0)", args, &v, why, sizeof(why)),
	      "strtoll with base arg0 = 37 ran: %llu", (unsigned long long)v);
	static const int64_t ok_args[D_NARGS] = { 36 };
	CHECK(t, d_eval("strtoll(\"z\", arg0)", ok_args, &v, why, sizeof(why)) && v == 35,
	      "strtoll(\"z\", 36) = %llu (%s)", (unsigned long long)v, why);
}

HOST_TEST(d_byte_order_matches_endian_h)
{
	static const uint64_t values[] = {
		0, 1, 0xff, 0x1234, 0x12345678, 0x0123456789abcdefull, ~0ull, 0x8000000000000001ull,
		0xffff0000ffff0000ull, 0xa5,
	};
	for (size_t i = 0; i < sizeof(values) / sizeof(values[0]); i++) {
		uint64_t v = values[i];
		const int64_t args[D_NARGS] = { (int64_t)v };
		const struct {
			const char *expr;
			uint64_t want;
		} cases[] = {
			{ "htons(arg0)", htobe16((uint16_t)v) },
			{ "htonl(arg0)", htobe32((uint32_t)v) },
			{ "htonll(arg0)", htobe64(v) },
			{ "ntohs(arg0)", be16toh((uint16_t)v) },
			{ "ntohl(arg0)", be32toh((uint32_t)v) },
			{ "ntohll(arg0)", be64toh(v) },
			{ "ntohl(htonl(arg0))", (uint32_t)v },
			{ "ntohll(htonll(arg0))", v },
		};
		for (size_t j = 0; j < sizeof(cases) / sizeof(cases[0]); j++) {
			uint64_t got = 0;
			char why[300] = "";
			bool ok = d_eval(cases[j].expr, args, &got, why, sizeof(why));
			CHECK(t, ok && got == cases[j].want, "%s, arg0 %#llx: %#llx (%s), want %#llx",
			      cases[j].expr, (unsigned long long)v, (unsigned long long)got, why,
			      (unsigned long long)cases[j].want);
		}
	}
	/* This host is little-endian, as x86 is: the swap is visible. */
	const int64_t args[D_NARGS] = { 0x12345678 };
	uint64_t got = 0;
	char why[300] = "";
	CHECK(t, d_eval("htonl(arg0)", args, &got, why, sizeof(why)) && got == 0x78563412,
	      "htonl(0x12345678) = %#llx (%s)", (unsigned long long)got, why);
	/* The results are unsigned of their width: htons(-1) is 65535, not -1. */
	CHECK(t, d_eval("htons(-1) > 0", args, &got, why, sizeof(why)) && got == 1,
	      "htons(-1) > 0: %llu (%s)", (unsigned long long)got, why);
}

HOST_TEST(d_cleanpath_resolves_as_text)
{
	static const struct {
		const char *pragmas, *path, *want;
	} cases[] = {
		{ "", "/foo/bar/baz", "/foo/bar/baz" },
		{ "", "/foo/bar///baz/", "/foo/bar/baz/" },
		{ "", "/foo/bar/baz/.", "/foo/bar/baz/." },
		{ "", "/foo/bar/baz/./", "/foo/bar/baz/" },
		{ "", "/foo/bar/../../baz/.//", "/baz/" },
		{ "", "foo/bar/./../../baz/.//", "/baz/" },
		{ "", "/../../foo/bar", "/foo/bar" },
		{ "", "/a/b/..", "/a/" },
		{ "", "/a/b/../c", "/a/c" },
		{ "", "/..", "/" },
		{ "", "/foo/../bar/..", "/" },
		{ "", "/.hidden/..x/...", "/.hidden/..x/..." },
		{ "", "a//b/./c/", "a/b/c/" },
		{ "", "a/..", "a" },
		{ "", "//", "/" },
		{ "", "/", "/" },
		{ "", ".", "." },
		{ "", "", "" },
		/* strsize 16: 15 bytes fit whole, a longer path is cut to 15 first */
		{ "#pragma D option strsize=16\n", "/aaaa/bbbb/cccc", "/aaaa/bbbb/cccc" },
		{ "#pragma D option strsize=16\n", "/aaaa/bbbb/ccccdddd", "/aaaa/bbbb/cccc" },
		{ "#pragma D option strsize=16\n", "/aaaa/../cccc/..//dd", "/cccc/." },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char lit[200], expr[240], why[300] = "";
		struct fake_value rec;
		d_literal(cases[i].path, lit, sizeof(lit));
		snprintf(expr, sizeof(expr), "cleanpath(%s)", lit);
		bool ok = trace_one(cases[i].pragmas, expr, &rec, why, sizeof(why));
		CHECK(t, ok && rec.is_string && !strcmp(rec.str, cases[i].want),
		      "cleanpath(\"%s\"): got \"%s\" (%s), want \"%s\"", cases[i].path,
		      ok ? rec.str : "", why, cases[i].want);
	}
	/* Its result is a string like any: a key, and an argument to other subroutines. */
	struct fake_value recs[2];
	unsigned n;
	char why[300] = "";
	int rc = d_fire_once("BEGIN { trace(basename(cleanpath(\"/x/y/../z\"))); "
			     "trace(strlen(cleanpath(\"/x//y\"))); }", recs, 2, &n, why, sizeof(why));
	CHECK(t, rc == 0 && n == 2 && !strcmp(recs[0].str, "z") && recs[1].value == 4,
	      "nested: rc %d (%s), %u records", rc, why, n);
}
