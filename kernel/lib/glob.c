// SPDX-License-Identifier: BSD-2-Clause
/*
 * Glob matching without recursion: on a mismatch, back up to the last '*'
 * and let it absorb one more character. Only the last star needs
 * remembering, which bounds the work by len(pattern) * len(s).
 */
#include <scion/glob.h>
#include <scion/string.h>

/*
 * Match one character against the class at *pp ('[' already seen); advance
 * *pp past it. Bounds are compared as unsigned bytes: with a signed char,
 * a range ending at 0x80 or above would be empty.
 */
static bool match_class(const char **pp, unsigned char c, bool *malformed)
{
	const char *p = *pp;
	bool negate = false, matched = false;

	if (*p == '!' || *p == '^') {
		negate = true;
		p++;
	}
	bool first = true;
	while (*p && (*p != ']' || first)) {
		unsigned char lo = (unsigned char)*p, hi;
		if (lo == '\\' && p[1])
			lo = (unsigned char)*++p;
		if (p[1] == '-' && p[2] && p[2] != ']') {
			hi = (unsigned char)p[2];
			if (hi == '\\' && p[3])
				hi = (unsigned char)p[3], p++;
			p += 3;
		} else {
			hi = lo;
			p++;
		}
		if (c >= lo && c <= hi)
			matched = true;
		first = false;
	}
	if (*p != ']') {
		*malformed = true;
		return false;
	}
	*pp = p + 1;
	return matched != negate;
}

bool glob_match(const char *pattern, const char *s)
{
	const char *p = pattern, *star_p = NULL, *star_s = NULL;
	bool malformed = false;

	while (*s) {
		const char *next_p = p;
		bool ok;
		if (*p == '*') {
			star_p = ++p;
			star_s = s;
			continue;
		}
		if (*p == '?') {
			ok = true;
			next_p = p + 1;
		} else if (*p == '[') {
			next_p = p + 1;
			ok = match_class(&next_p, (unsigned char)*s, &malformed);
			if (malformed)
				return false;
		} else if (*p == '\\' && p[1]) {
			ok = p[1] == *s;
			next_p = p + 2;
		} else {
			ok = *p && *p == *s;
			next_p = p + 1;
		}
		if (ok) {
			p = next_p;
			s++;
		} else if (star_p) {
			p = star_p;
			s = ++star_s;
		} else {
			return false;
		}
	}
	while (*p == '*')
		p++;
	return *p == '\0';
}

bool glob_list_match(const char *list, const char *s)
{
	char pat[128];
	bool have_positive = false, selected = false;

	while (*list) {
		const char *comma = strchr(list, ',');
		size_t n = comma ? (size_t)(comma - list) : strlen(list);
		if (n >= sizeof(pat))
			n = sizeof(pat) - 1;
		memcpy(pat, list, n);
		pat[n] = '\0';
		list += comma ? (size_t)(comma - list) + 1 : strlen(list);
		if (pat[0] == '!') {
			if (glob_match(pat + 1, s))
				return false;
		} else if (pat[0]) {
			have_positive = true;
			if (glob_match(pat, s))
				selected = true;
		}
	}
	return selected || !have_positive;
}
