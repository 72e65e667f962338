// SPDX-License-Identifier: BSD-2-Clause
/* Host tests of glob matching (kernel/lib/glob.c). */
#include <string.h>
#include <time.h>
#include "host_test.h"
#include <scion/glob.h>

HOST_TEST(glob_literals_and_wildcards)
{
	CHECK(t, glob_match("abc", "abc"), "literal");
	CHECK(t, !glob_match("abc", "abcd"), "literal must match whole string");
	CHECK(t, !glob_match("abcd", "abc"), "literal longer than string");
	CHECK(t, glob_match("", ""), "empty vs empty");
	CHECK(t, !glob_match("", "a"), "empty pattern vs a");
	CHECK(t, glob_match("a*", "abc"), "a* vs abc");
	CHECK(t, glob_match("a*", "a"), "a* vs a: star matches nothing");
	CHECK(t, !glob_match("a*", "ba"), "a* vs ba");
	CHECK(t, glob_match("*", ""), "* vs empty");
	CHECK(t, glob_match("**", "x"), "** vs x");
	CHECK(t, glob_match("*c", "abc"), "*c vs abc");
	CHECK(t, !glob_match("*c", "abcd"), "*c vs abcd");
	CHECK(t, glob_match("a?c", "abc"), "? matches one");
	CHECK(t, !glob_match("a?c", "ac"), "? needs one");
	CHECK(t, !glob_match("?", ""), "? vs empty");
	CHECK(t, glob_match("???", "xyz"), "??? vs xyz");
	CHECK(t, glob_match("*a*b*c*", "xxaxxbxxcxx"), "stars");
	CHECK(t, !glob_match("*a*b*c*", "xxcxxbxxaxx"), "order");
	CHECK(t, glob_match("sched_*_tick", "sched_rr_tick"), "infix star");
	CHECK(t, glob_match("*ab", "aab"), "star must retry after a partial match");
	CHECK(t, glob_match("*aab", "aaab"), "star backtracks over a repeated prefix");
	CHECK(t, glob_match("a*b?d", "axxbbcd"), "star then ? after backtracking");
}

HOST_TEST(glob_classes)
{
	CHECK(t, glob_match("[abc]", "a"), "[abc] vs a");
	CHECK(t, glob_match("[abc]", "c"), "[abc] vs c");
	CHECK(t, !glob_match("[abc]", "d"), "[abc] vs d");
	CHECK(t, !glob_match("[abc]", ""), "[abc] vs empty");
	CHECK(t, !glob_match("[abc]", "ab"), "class matches one character only");
	CHECK(t, glob_match("[a-z]", "m"), "[a-z] vs m");
	CHECK(t, glob_match("[a-z]", "a") && glob_match("[a-z]", "z"), "range ends are inclusive");
	CHECK(t, !glob_match("[a-z]", "A"), "[a-z] vs A");
	CHECK(t, !glob_match("[a-z]", "{"), "[a-z] vs {");
	CHECK(t, glob_match("[!a-z]", "A"), "[!a-z] vs A");
	CHECK(t, !glob_match("[!a-z]", "q"), "[!a-z] vs q");
	CHECK(t, glob_match("[^0-9]", "x") && !glob_match("[^0-9]", "5"), "^ negates like !");
	CHECK(t, glob_match("[a-cx-z0]", "y") && glob_match("[a-cx-z0]", "0") &&
		 !glob_match("[a-cx-z0]", "d"), "several ranges and a literal");
	CHECK(t, glob_match("[]]", "]"), "] first in a class is literal");
	CHECK(t, glob_match("[!]]", "a") && !glob_match("[!]]", "]"), "] first after ! is literal");
	CHECK(t, glob_match("[a-]", "-") && glob_match("[a-]", "a") && !glob_match("[a-]", "b"),
	      "- before ] is literal");
	CHECK(t, glob_match("x[0-9][0-9]y", "x42y"), "two classes");
	CHECK(t, glob_match("*[0-9]", "cpu7") && !glob_match("*[0-9]", "cpu"), "star then class");
	CHECK(t, glob_match("[*?]", "*") && !glob_match("[*?]", "x"), "* and ? are literal in a class");
}

HOST_TEST(glob_backslash_escapes)
{
	CHECK(t, glob_match("\\*", "*"), "\\* vs *");
	CHECK(t, !glob_match("\\*", "x"), "\\* vs x");
	CHECK(t, !glob_match("\\*", ""), "\\* vs empty");
	CHECK(t, glob_match("\\?", "?") && !glob_match("\\?", "a"), "\\? is literal");
	CHECK(t, glob_match("\\[a]", "[a]") && !glob_match("\\[a]", "a"), "\\[ is literal");
	CHECK(t, glob_match("a\\\\b", "a\\b"), "escaped backslash");
	CHECK(t, glob_match("\\a", "a"), "escaped ordinary character");
	CHECK(t, glob_match("*\\*", "ab*") && !glob_match("*\\*", "ab"), "star then escaped star");
	CHECK(t, glob_match("[\\]]", "]") && !glob_match("[\\]]", "\\"), "escaped ] in a class");
	CHECK(t, glob_match("[a\\-z]", "-") && !glob_match("[a\\-z]", "m"),
	      "escaped - in a class is literal");
	CHECK(t, glob_match("a\\", "a\\"), "a trailing backslash matches itself");
	CHECK(t, !glob_match("a\\", "a"), "a trailing backslash is not nothing");
}

HOST_TEST(glob_malformed_classes_never_match)
{
	static const char *const patterns[] = {
		"[", "[a", "[a-", "[a-z", "[!", "[!a", "[\\", "[\\]", "*[", "*[a", "a[", "?[", "[]",
		"[!]",
	};
	static const char *const strings[] = { "", "a", "[", "[a", "ab", "]", "a[", "x[a-z" };

	for (size_t i = 0; i < sizeof(patterns) / sizeof(patterns[0]); i++)
		for (size_t j = 0; j < sizeof(strings) / sizeof(strings[0]); j++)
			CHECK(t, !glob_match(patterns[i], strings[j]), "malformed '%s' matched '%s'",
			      patterns[i], strings[j]);
}

HOST_TEST(glob_list_with_exclusions)
{
	CHECK(t, glob_list_match("", "anything"), "an empty list selects everything");
	CHECK(t, glob_list_match("a*", "abc"), "one positive pattern");
	CHECK(t, !glob_list_match("a*", "xbc"), "one positive pattern, no match");
	CHECK(t, glob_list_match("x*,a*", "abc"), "second of two positives");
	CHECK(t, glob_list_match("x*,a*", "xyz"), "first of two positives");
	CHECK(t, !glob_list_match("x*,a*", "q"), "neither positive");
	CHECK(t, !glob_list_match("!a*", "abc"), "only an exclusion, excluded");
	CHECK(t, glob_list_match("!a*", "xyz"), "only exclusions select the rest");
	CHECK(t, !glob_list_match("pmm_*,!pmm_stress", "pmm_stress"), "exclusion beats a positive");
	CHECK(t, glob_list_match("pmm_*,!pmm_stress", "pmm_alloc"), "positive not excluded");
	CHECK(t, !glob_list_match("!pmm_stress,pmm_*", "pmm_stress"), "exclusion first also wins");
	CHECK(t, !glob_list_match("!a,!b", "b"), "second exclusion");
	CHECK(t, glob_list_match("!a,!b", "c"), "two exclusions, neither");
	CHECK(t, glob_list_match("a,,b", "b"), "empty items are ignored");
	CHECK(t, glob_list_match(",", "x"), "a list of empty items selects everything");
	CHECK(t, glob_list_match("a,", "a") && !glob_list_match("a,", "b"), "trailing comma");
	CHECK(t, glob_list_match("[a-c]x,y", "bx"), "class in a list item");
}

/* A pattern that makes a backtracking matcher exponential must stay fast. */
HOST_TEST(glob_pathological_patterns_are_fast)
{
	static char s[20001];
	memset(s, 'a', sizeof(s) - 1);
	s[sizeof(s) - 1] = '\0';

	clock_t start = clock();
	CHECK(t, !glob_match("*a*a*a*a*a*b", s), "no b in the string");
	CHECK(t, !glob_match("*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*b", s), "no b, many stars");
	CHECK(t, !glob_match("*?*?*?*?*?*?*?*?*?*?*b", s), "stars and ?");
	CHECK(t, glob_match("*a*a*a*a*a*a", s), "many stars, matching");
	s[sizeof(s) - 2] = 'b';
	CHECK(t, glob_match("*a*a*a*a*a*b", s), "b at the end");
	double seconds = (double)(clock() - start) / CLOCKS_PER_SEC;
	CHECK(t, seconds < 2.0, "pathological patterns took %.2f s", seconds);
}

/* Ranges compare byte values, so bytes from 0x80 up sort after ASCII. */
HOST_TEST(glob_class_ranges_with_high_bytes)
{
	CHECK(t, glob_match("[a-\xff]", "z"), "[a-\\xff] vs z");
	CHECK(t, glob_match("[a-\xff]", "\xc3"), "[a-\\xff] vs \\xc3");
	CHECK(t, !glob_match("[a-\xff]", "A"), "[a-\\xff] vs A");
	CHECK(t, glob_match("[\x80-\xff]", "\xe9") && !glob_match("[\x80-\xff]", "e"),
	      "[\\x80-\\xff]");
	CHECK(t, glob_match("[!\x01-\x7f]", "\xe9") && !glob_match("[!\x01-\x7f]", "q"),
	      "negated ASCII range");
	CHECK(t, glob_match("caf[\xc3][\xa9]", "caf\xc3\xa9"), "single high bytes");
}
