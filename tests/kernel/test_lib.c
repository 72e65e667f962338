// SPDX-License-Identifier: BSD-2-Clause
/* In-kernel tests of the freestanding library: formatting and number parsing. */
#include <scion/ktest.h>
#include <scion/format.h>
#include <scion/string.h>
#include <scion/errno.h>
#include <scion/glob.h>
#include <scion/sort.h>

#define EXPECT_FORMAT(t, expected, ...) do { \
	char buf_[96]; \
	snprintf(buf_, sizeof(buf_), __VA_ARGS__); \
	KT_EXPECT(t, !strcmp(buf_, expected), "got '%s', expected '%s'", buf_, expected); \
} while (0)

KTEST(lib_format, 1)
{
	EXPECT_FORMAT(t, "42|42   |00042|  -42", "%d|%-5d|%05d|%5d", 42, 42, 42, -42);
	EXPECT_FORMAT(t, "ff|FF|0xff|377", "%x|%X|%#x|%o", 255u, 255u, 255u, 255u);
	EXPECT_FORMAT(t, "18446744073709551615", "%llu", 18446744073709551615ull);
	EXPECT_FORMAT(t, "-9223372036854775808", "%lld", (long long)(-9223372036854775807ll - 1));
	EXPECT_FORMAT(t, "0x00000000deadbeef", "%p", (void *)0xdeadbeefull);
	const char *volatile null_string = NULL;
	EXPECT_FORMAT(t, "(null)|ab|  abc|abc  ", "%s|%.2s|%5s|%-5s", null_string, "abc", "abc", "abc");
	EXPECT_FORMAT(t, "x|%|7", "%c|%%|%zu", 'x', (size_t)7);
	EXPECT_FORMAT(t, "+5| 5|0000000012", "%+d|% d|%.10u", 5, 5, 12u);

	char small[6];
	int n = snprintf(small, sizeof(small), "%s", "truncated");
	KT_EXPECT(t, n == 9, "snprintf returns the full length, got %d", n);
	KT_EXPECT(t, !strcmp(small, "trunc"), "truncated output '%s'", small);
}

KTEST(lib_parse_u64, 1)
{
	uint64_t v;
	KT_EXPECT(t, parse_u64("123", &v, false) == 0 && v == 123, "decimal");
	KT_EXPECT(t, parse_u64("0x1F", &v, false) == 0 && v == 31, "hexadecimal");
	KT_EXPECT(t, parse_u64("4K", &v, true) == 0 && v == 4096, "K suffix");
	KT_EXPECT(t, parse_u64("2G", &v, true) == 0 && v == 2ull << 30, "G suffix");
	KT_EXPECT(t, parse_u64("4K", &v, false) == -EINVAL, "suffix refused when not allowed");
	KT_EXPECT(t, parse_u64("18446744073709551616", &v, false) == -ERANGE, "overflow");
	KT_EXPECT(t, parse_u64("16777216T", &v, true) == -EINVAL, "unknown suffix");
	KT_EXPECT(t, parse_u64("", &v, false) == -EINVAL, "empty");
	KT_EXPECT(t, parse_u64("0x", &v, false) == -EINVAL, "bare 0x");
	KT_EXPECT(t, parse_u64("12x", &v, false) == -EINVAL, "trailing garbage");
	KT_EXPECT(t, parse_u64("-1", &v, false) == -EINVAL, "negative");
}

KTEST(lib_strings, 1)
{
	char buf[8];
	KT_EXPECT(t, strlcpy(buf, "abcdefghij", sizeof(buf)) == 10 && !strcmp(buf, "abcdefg"),
		  "strlcpy truncates and returns the source length");
	KT_EXPECT(t, strcmp("abc", "abd") < 0 && strcmp("b", "a") > 0 && !strcmp("", ""), "strcmp");
	KT_EXPECT(t, strncmp("abcX", "abcY", 3) == 0, "strncmp stops at n");
	const char *hay = "probe machinery";
	KT_EXPECT(t, strstr(hay, "mach") == hay + 6 && strstr(hay, "") == hay &&
		     !strstr(hay, "machines") && !strstr("", "a"), "strstr");
	char overlap[] = "0123456789";
	memmove(overlap + 2, overlap, 5);
	KT_EXPECT(t, !strcmp(overlap, "0101234789"), "memmove overlapping forward: %s", overlap);
	KT_EXPECT(t, !strcmp(errno_name(-ENOMEM), "ENOMEM") && !strcmp(errno_name(999), "E?"),
		  "errno names");
	KT_EXPECT(t, glob_list_match("sched_*,!sched_slow", "sched_fast") &&
		     !glob_list_match("sched_*,!sched_slow", "sched_slow"), "glob lists");
}

KTEST(lib_sort_u64, 1)
{
	uint64_t a[200];
	uint64_t x = 12345;
	for (size_t i = 0; i < ARRAY_SIZE(a); i++) {
		x = x * 6364136223846793005ull + 1442695040888963407ull;
		a[i] = (x >> 40) % 97;	/* many duplicates */
	}
	sort_u64(a, ARRAY_SIZE(a));
	for (size_t i = 1; i < ARRAY_SIZE(a); i++)
		KT_ASSERT(t, a[i - 1] <= a[i], "out of order at %zu", i);
	sort_u64(a, 0);
	uint64_t s[] = { 10, 20, 30 };
	KT_EXPECT(t, sorted_u64_any_between(s, 3, 15, 25), "20 is in (15, 25)");
	KT_EXPECT(t, !sorted_u64_any_between(s, 3, 10, 20), "bounds are exclusive");
	KT_EXPECT(t, !sorted_u64_any_between(s, 3, 30, 100), "nothing above 30");
	KT_EXPECT(t, sorted_u64_any_between(s, 3, 0, 11), "10 is in (0, 11)");
	KT_EXPECT(t, !sorted_u64_any_between(s, 0, 0, 100), "empty array");
}
