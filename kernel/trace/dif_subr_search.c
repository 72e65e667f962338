// SPDX-License-Identifier: BSD-2-Clause
/*
 * DIF subroutines that search strings: index() and rindex() (positions,
 * -1 when absent), strstr(), strchr() and strrchr() (the rest of the
 * string from the match, or 0 -- D's NULL -- when absent), and strtok()
 * (the next token, or NULL). Each follows DTrace's answers on its edge
 * cases (empty strings, start positions before or past the string), which
 * are Perl's for index() and rindex().
 *
 * Every string is first copied into scratch space through the
 * fault-tolerant path, at most the program's strsize bytes with its NUL,
 * so a search never reads past the string or past scratch; a match is
 * returned as an address inside that copy, which lives as long as the
 * ECB's firing, as DTrace's pointer into the original would.
 */
#include <scion/string.h>
#include "dif_internal.h"

/*
 * Where sub first (reverse: last) stands in s, or -1. With a start (index,
 * rindex), Perl's rules: index starts at 0 from before the string and
 * finds nothing past it, rindex starts at the end from past the string
 * and finds nothing before it, except "", found at the start clamped to
 * the string and at its end past it. "" in "" is at 0 whatever the start.
 */
static int64_t position(const char *s, long len, const char *sub, long sublen, bool reverse,
			const int64_t *start)
{
	if (len == 0 && sublen == 0)
		return 0;
	int64_t from = reverse ? len : 0;
	if (start && reverse && *start < 0)
		return sublen == 0 ? 0 : -1;
	if (start && !reverse && *start >= len)
		return sublen == 0 ? len : -1;
	if (start)
		from = reverse ? (*start > len ? len : *start) : (*start < 0 ? 0 : *start);
	/* Forward over [from, len); backward over [0, from], where "" matches at len. */
	for (int64_t i = from; reverse ? i >= 0 : i < len; i += reverse ? -1 : 1)
		if (i + sublen <= len && !memcmp(s + i, sub, (size_t)sublen))
			return i;
	return -1;
}

/*
 * index(s, sub[, start]) and rindex(s, sub[, start]): the position, or -1;
 * strstr(s, sub): s from that position, or NULL ("" in "" is s itself).
 */
static int find_substring(struct run *x, unsigned id, uint64_t *out)
{
	long len, sublen;
	char *s = dif_string_arg(x, 0, &len), *sub = s ? dif_string_arg(x, 1, &sublen) : NULL;
	if (!sub)
		return -1;
	int64_t start = x->ntuple == 3 ? (int64_t)x->tuple[2].value : 0;
	int64_t at = position(s, len, sub, sublen, id == DIF_SUBR_RINDEX,
			      x->ntuple == 3 ? &start : NULL);
	if (id != DIF_SUBR_STRSTR)
		*out = (uint64_t)at;
	else
		*out = at < 0 ? 0 : (uint64_t)(uintptr_t)(s + at);
	return 0;
}

/*
 * strchr(s, c) and strrchr(s, c): s from c's first (last) occurrence, or
 * NULL. As in C, c is a char, and '\0' finds the string's end.
 */
static int find_char(struct run *x, bool last, uint64_t *out)
{
	long len;
	char *s = dif_string_arg(x, 0, &len);
	if (!s)
		return -1;
	char c = (char)x->tuple[1].value;
	*out = 0;
	for (long i = 0; i <= len; i++) {
		if (s[i] != c)
			continue;
		*out = (uint64_t)(uintptr_t)(s + i);
		if (!last)
			break;
	}
	return 0;
}

static bool is_delimiter(const uint8_t map[32], char c)
{
	uint8_t b = (uint8_t)c;
	return map[b >> 3] & (1u << (b & 7));
}

/*
 * strtok(s, delimiters): the first token of s, remembering where it
 * stopped; strtok(NULL, delimiters) goes on from there, for the rest of
 * the probe firing (clauses after this one too, as in DTrace). NULL when
 * no token is left. The string is read afresh from its own address each
 * call, never past strsize - 1 bytes from where the first call started.
 */
static int tokenize(struct run *x, uint64_t *out)
{
	uint64_t *state = x->ops->strtok_state ? x->ops->strtok_state(x->env) : NULL;
	if (!state)
		return dif_fail(x, DIF_FAULT_ILLOP, DIF_SUBR_STRTOK);
	long ndelims;
	char *delims = dif_string_arg(x, 1, &ndelims), *s = delims ? dif_scratch_string(x) : NULL;
	if (!s)
		return -1;
	uint8_t map[32] = { 0 };
	for (long i = 0; i < ndelims; i++)
		map[(uint8_t)delims[i] >> 3] |= (uint8_t)(1u << ((uint8_t)delims[i] & 7));

	uint64_t from = x->tuple[0].value, end = from + x->p->strsize - 1;
	if (!from) {
		from = state[0];
		end = state[1];
	}
	*out = 0;
	if (!from || end <= from) {
		state[0] = state[1] = 0;
		return 0;
	}
	long len = dif_read_string(x, from, s, (size_t)(end - from) + 1);
	if (len < 0)
		return -1;
	long start = 0;
	while (start < len && is_delimiter(map, s[start]))
		start++;
	if (start == len && len < (long)(end - from)) {
		/* Only delimiters up to the NUL: no token left. */
		state[0] = state[1] = 0;
		return 0;
	}
	long stop = start;
	while (stop < len && !is_delimiter(map, s[stop]))
		stop++;
	memmove(s, s + start, (size_t)(stop - start));
	s[stop - start] = '\0';
	state[0] = from + (uint64_t)stop;	/* at the delimiter, which the next call skips */
	state[1] = end;
	*out = (uint64_t)(uintptr_t)s;
	return 0;
}

int dif_subr_search(struct run *x, unsigned id, uint64_t *out)
{
	switch (id) {
	case DIF_SUBR_INDEX:
	case DIF_SUBR_RINDEX:
	case DIF_SUBR_STRSTR:
		return find_substring(x, id, out);
	case DIF_SUBR_STRCHR:
		return find_char(x, false, out);
	case DIF_SUBR_STRRCHR:
		return find_char(x, true, out);
	case DIF_SUBR_STRTOK:
		return tokenize(x, out);
	}
	return dif_fail(x, DIF_FAULT_ILLOP, id);
}
