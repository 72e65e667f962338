// SPDX-License-Identifier: BSD-2-Clause
/*
 * libFuzzer target: glob_match and glob_list_match on an arbitrary
 * pattern and string, checked against a slow dynamic-programming matcher
 * written from the contract in scion/glob.h.
 */
#include <string.h>
#include "fuzz.h"
#include <scion/glob.h>

enum token_kind { T_LITERAL, T_ANY, T_STAR, T_CLASS };

struct token {
	enum token_kind kind;
	unsigned char c;		/* T_LITERAL */
	bool set[256];			/* T_CLASS: bytes it matches */
};

/*
 * Parse a class after '[': [abc], [a-z], [!a-z] or [^a-z]; ']' right
 * after the opening (and after '!') is literal, '\' quotes, '-' before
 * ']' is literal. Ranges compare byte values. Return false if no ']'.
 */
static bool parse_class(const unsigned char **pp, struct token *t)
{
	const unsigned char *p = *pp;
	bool negate = false;

	memset(t->set, 0, sizeof(t->set));
	if (*p == '!' || *p == '^') {
		negate = true;
		p++;
	}
	for (bool first = true; *p && (*p != ']' || first); first = false) {
		unsigned char lo = *p, hi;
		if (lo == '\\' && p[1])
			lo = *++p;
		if (p[1] == '-' && p[2] && p[2] != ']') {
			hi = p[2];
			if (hi == '\\' && p[3])
				hi = p[3], p++;
			p += 3;
		} else {
			hi = lo;
			p++;
		}
		for (unsigned c = lo; c <= hi; c++)
			t->set[c] = true;
	}
	if (*p != ']')
		return false;
	if (negate)
		for (unsigned c = 0; c < 256; c++)
			t->set[c] = !t->set[c];
	*pp = p + 1;
	return true;
}

/* Reference matcher: tokens, then match[i][j] over (token i, byte j). */
static bool reference_match(const char *pattern, const char *s)
{
	static struct token tokens[1024];
	static bool dp[1025][1025];
	size_t nt = 0, ns = strlen(s);
	const unsigned char *p = (const unsigned char *)pattern;

	while (*p) {
		struct token *t = &tokens[nt++];
		if (*p == '*') {
			t->kind = T_STAR;
			p++;
		} else if (*p == '?') {
			t->kind = T_ANY;
			p++;
		} else if (*p == '[') {
			t->kind = T_CLASS;
			p++;
			if (!parse_class(&p, t))
				return false;	/* a malformed class never matches */
		} else if (*p == '\\' && p[1]) {
			t->kind = T_LITERAL;
			t->c = p[1];
			p += 2;
		} else {
			t->kind = T_LITERAL;
			t->c = *p++;
		}
	}
	/* dp[i][j]: tokens i.. match s[j..]. */
	for (size_t i = nt + 1; i-- > 0;)
		for (size_t j = ns + 1; j-- > 0;) {
			if (i == nt) {
				dp[i][j] = j == ns;
				continue;
			}
			const struct token *t = &tokens[i];
			unsigned char c = j < ns ? (unsigned char)s[j] : 0;
			switch (t->kind) {
			case T_STAR:
				dp[i][j] = dp[i + 1][j] || (j < ns && dp[i][j + 1]);
				break;
			case T_ANY:
				dp[i][j] = j < ns && dp[i + 1][j + 1];
				break;
			case T_LITERAL:
				dp[i][j] = j < ns && c == t->c && dp[i + 1][j + 1];
				break;
			case T_CLASS:
				dp[i][j] = j < ns && t->set[c] && dp[i + 1][j + 1];
				break;
			}
		}
	return dp[0][0];
}

/* Input: pattern, a NUL, string (no NUL: the whole input is the pattern, the string empty). */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size > 1000)	/* the reference tables hold 1024 */
		return 0;
	char *buf = malloc(size + 2);
	if (!buf)
		return 0;
	memcpy(buf, data, size);
	buf[size] = '\0';
	buf[size + 1] = '\0';
	const char *pattern = buf;
	const char *s = buf + strlen(buf) + 1;

	bool got = glob_match(pattern, s);
	bool want = reference_match(pattern, s);
	FUZZ_ASSERT(got == want, "glob_match(\"%s\", \"%s\") = %d, reference %d", pattern, s, got,
		    want);
	/* A one-item list is the pattern itself when it has no ',' or leading '!'. */
	bool listed = glob_list_match(pattern, s);
	if (!strchr(pattern, ',') && pattern[0] != '!' && strlen(pattern) < 128 && pattern[0])
		FUZZ_ASSERT(listed == got, "glob_list_match(\"%s\", \"%s\") = %d", pattern, s, listed);
	free(buf);
	return 0;
}
