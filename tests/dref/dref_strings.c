// SPDX-License-Identifier: BSD-2-Clause
/*
 * The reference evaluator's subroutines: D's string functions as DTrace
 * defines them (illumos dtrace_dif_subr: index/rindex with Perl's
 * position rules, substr's negative positions and lengths, lltostr's
 * prefixes, basename/dirname's slashes, strtok's saved place; toupper,
 * tolower, strtoll, cleanpath, htons ... ntohll), written
 * as plain C over the evaluator's string values, each result cut to
 * strsize - 1 bytes.
 *
 * Where Scion documents a choice of its own it is followed: a NULL
 * string argument is an invalid address (0); strtok(NULL, ...) with no
 * search under way gives NULL; lltostr's base must be 2..36 as a 64-bit
 * value (DIF_FAULT_BADARG at the base).
 */
#include <ctype.h>
#include <endian.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "dref_eval.h"

static bool need_string(struct dref_eval *e, const struct dref_value *v)
{
	return v->null ? dref_fail(e, DIF_FAULT_BADADDR, 0) : true;
}

/*
 * index(), rindex() and strstr(): where sub stands in s, or -1. DTrace's
 * loop: forward from 0 (or pos) up to the end, or backward from len (or
 * pos) down to 0; positions clamped as Perl clamps them.
 */
static int64_t search(const char *s, const char *sub, bool reverse, const int64_t *pos)
{
	int64_t len = (int64_t)strlen(s), sublen = (int64_t)strlen(sub);
	if (len == 0 && sublen == 0)
		return 0;
	int64_t at = reverse ? len : 0, stop = reverse ? -1 : len, step = reverse ? -1 : 1;
	if (pos) {
		int64_t p = *pos;
		if (reverse) {
			if (p < 0)
				return sublen == 0 ? 0 : -1;
			at = p > len ? len : p;
		} else {
			if (p < 0)
				p = 0;
			if (p >= len)
				return sublen == 0 ? len : -1;
			at = p;
		}
	}
	for (; at != stop; at += step)
		if (strncmp(s + at, sub, (size_t)sublen) == 0)
			return at;
	return -1;
}

/* substr(s, index[, remaining]) as DTrace computes it, size being strsize. */
static void substr(struct dref_eval *e, const char *s, int64_t index, bool has_len,
		   int64_t remaining, struct dref_value *v)
{
	int64_t size = (int64_t)e->strmax + 1, len = (int64_t)strlen(s);
	if (!has_len)
		remaining = size;
	if (index < 0) {
		index += len;
		if (index < 0 && remaining > -index) {
			remaining += index;
			index = 0;
		}
	}
	if (index >= len || index < 0)
		remaining = 0;
	else if (remaining < 0)
		remaining += len - index;
	else if (remaining > size - index)
		remaining = size - index;
	if (remaining <= 0) {
		dref_str_value(e, v, "", 0);
		return;
	}
	int64_t n = len - index < remaining ? len - index : remaining;
	dref_str_value(e, v, s + index, (size_t)n);
}

static bool lltostr(struct dref_eval *e, uint64_t value, uint64_t base, struct dref_value *v)
{
	if (base <= 1 || base > 36)
		return dref_fail(e, DIF_FAULT_BADARG, base);
	char buf[80], *end = buf + sizeof(buf) - 1;
	int64_t i = (int64_t)value;
	uint64_t u = base == 10 && i < 0 ? 0 - value : value;
	*end = '\0';
	for (; u; u /= base) {
		unsigned d = (unsigned)(u % base);
		*--end = (char)(d <= 9 ? '0' + d : 'a' + d - 10);
	}
	if (i == 0 && base == 16)
		*--end = '0';
	if (base == 16)
		*--end = 'x';
	if (i == 0 || base == 8 || base == 16)
		*--end = '0';
	if (i < 0 && base == 10)
		*--end = '-';
	dref_str_value(e, v, end, strlen(end));
	return true;
}

/* basename() and dirname(): DTrace's scan from the end over the last component. */
static void path_part(struct dref_eval *e, const char *src, bool dir, struct dref_value *v)
{
	int len = (int)strlen(src);
	int lastbase = -1, firstbase = -1, lastdir = -1, i;
	if (len == 0) {
		src = ".";
		len = 1;
	}
	for (i = len - 1; i >= 0 && src[i] == '/'; i--)
		;
	if (i >= 0)
		lastbase = i;
	for (; i >= 0 && src[i] != '/'; i--)
		;
	if (i >= 0)
		firstbase = i + 1;
	for (; i >= 0 && src[i] == '/'; i--)
		;
	if (i >= 0)
		lastdir = i;
	if (lastbase == -1)		/* all slashes: "/" either way */
		firstbase = lastbase = lastdir = 0;
	if (firstbase == -1) {		/* no slash: dirname ".", basename the whole */
		if (dir) {
			src = ".";
			lastdir = 0;
		} else {
			firstbase = 0;
		}
	}
	int start = dir ? 0 : firstbase;
	int end = dir ? (lastdir == -1 ? 0 : lastdir) : lastbase;
	dref_str_value(e, v, src + start, (size_t)(end - start + 1));
}

static bool is_delimiter(const char *delims, char c)
{
	return c && strchr(delims, c);
}

static bool strtok_next(struct dref_eval *e, const struct dref_value *s, const char *delims,
			struct dref_value *v)
{
	if (s->null) {
		if (!e->strtok.on) {
			v->kind = DREF_STR;
			v->null = true;
			v->s[0] = '\0';
			return true;
		}
	} else {
		strcpy(e->strtok.s, s->s);
		e->strtok.at = 0;
		e->strtok.on = true;
	}
	const char *str = e->strtok.s;
	size_t at = e->strtok.at;
	while (str[at] && is_delimiter(delims, str[at]))
		at++;
	if (!str[at]) {
		e->strtok.on = false;
		v->kind = DREF_STR;
		v->null = true;
		v->s[0] = '\0';
		return true;
	}
	size_t start = at;
	while (str[at] && !is_delimiter(delims, str[at]))
		at++;
	e->strtok.at = at;		/* at the delimiter, which the next call skips */
	dref_str_value(e, v, str + start, at - start);
	return true;
}

/*
 * strtoll(s, base): DTrace's parse, written over C's strtoull where the
 * two agree: only spaces and tabs lead (any other white space C would
 * skip ends the parse at 0), and a value past 64 bits wraps where C's
 * clamps (so digits beyond what strtoull takes are folded in by hand).
 * Base 0 is C's choice of base, Scion's addition.
 */
static bool parse_int(struct dref_eval *e, const char *s, uint64_t base, struct dref_value *v,
		      struct dt_type t)
{
	if (base == 1 || base > 36)
		return dref_fail(e, DIF_FAULT_BADARG, base);
	while (*s == ' ' || *s == '\t')
		s++;
	bool negative = *s == '-';
	if (*s == '-' || *s == '+')
		s++;
	uint64_t u = 0;
	if (*s && !isspace((unsigned char)*s) && *s != '+' && *s != '-') {
		char *end;
		errno = 0;
		u = strtoull(s, &end, (int)base);
		if (errno == ERANGE) {	/* wrap: C stopped at ULLONG_MAX, DTrace goes on */
			if (base == 0)
				base = s[0] == '0' && (s[1] == 'x' || s[1] == 'X') ? 16 :
				       s[0] == '0' ? 8 : 10;
			const char *p = s;
			if (base == 16 && p[0] == '0' && (p[1] == 'x' || p[1] == 'X'))
				p += 2;
			u = 0;
			for (; p < end; p++) {
				int d = isdigit((unsigned char)*p) ? *p - '0' :
					tolower((unsigned char)*p) - 'a' + 10;
				u = u * base + (uint64_t)d;
			}
		}
	}
	dref_int_value(v, t, negative ? 0 - u : u);
	return true;
}

/* cleanpath(): DTrace's rules, component by component (see dif_subr_convert.c's comment). */
static void clean_path(struct dref_eval *e, const char *src, struct dref_value *v)
{
	char out[DIF_STRSIZE_MAX + 8];
	size_t n = 0, len = strlen(src);
	bool any = false;
	for (size_t i = 0; i < len;) {
		if (src[i] != '/') {
			out[n++] = src[i++];
			any = true;
			continue;
		}
		const char *c = src + i + 1;	/* the component after this slash */
		size_t clen = strcspn(c, "/");
		bool last = c[clen] == '\0';
		if (clen == 0 && !last) {		/* "//" */
			i++;
		} else if (clen == 1 && c[0] == '.' && !last) {	/* "/./" */
			i += 2;
		} else if (clen == 2 && c[0] == '.' && c[1] == '.') {	/* "/../", "/.." */
			while (n > 0 && out[--n] != '/')
				;
			i += 3;
			if (last) {
				if (!any)
					out[0] = '/';
				n++;
			}
		} else {
			out[n++] = '/';
			i++;
			any = true;
		}
	}
	dref_str_value(e, v, out, n);
}

static void null_result(struct dref_value *v)
{
	v->kind = DREF_STR;
	v->null = true;
	v->i = 0;
	v->s[0] = '\0';
}

bool dref_subroutine(struct dref_eval *e, const struct dt_node *n, const struct dref_value *args,
		     struct dref_value *v)
{
	const struct dref_value *a0 = &args[0], *a1 = &args[1], *a2 = &args[2];
	switch (n->ref.func->id) {
	case DT_F_STRLEN:
		if (!need_string(e, a0))
			return false;
		dref_int_value(v, n->type, strlen(a0->s));
		return true;
	case DT_F_STRJOIN: {
		if (!need_string(e, a0) || !need_string(e, a1))
			return false;
		char joined[2 * DREF_STRMAX];
		size_t la = strlen(a0->s), lb = strlen(a1->s);
		memcpy(joined, a0->s, la);
		memcpy(joined + la, a1->s, lb);
		dref_str_value(e, v, joined, la + lb);
		return true;
	}
	case DT_F_SUBSTR:
		if (!need_string(e, a0))
			return false;
		substr(e, a0->s, (int64_t)a1->i, n->nargs == 3,
		       n->nargs == 3 ? (int64_t)a2->i : 0, v);
		return true;
	case DT_F_INDEX:
	case DT_F_RINDEX: {
		if (!need_string(e, a0) || !need_string(e, a1))
			return false;
		int64_t pos = n->nargs == 3 ? (int64_t)a2->i : 0;
		int64_t at = search(a0->s, a1->s, n->ref.func->id == DT_F_RINDEX,
				    n->nargs == 3 ? &pos : NULL);
		dref_int_value(v, n->type, (uint64_t)at);
		return true;
	}
	case DT_F_STRSTR: {
		if (!need_string(e, a0) || !need_string(e, a1))
			return false;
		int64_t at = search(a0->s, a1->s, false, NULL);
		if (at < 0)
			null_result(v);
		else
			dref_str_value(e, v, a0->s + at, strlen(a0->s + at));
		return true;
	}
	case DT_F_STRCHR:
	case DT_F_STRRCHR: {
		if (!need_string(e, a0))
			return false;
		char c = (char)a1->i;
		size_t len = strlen(a0->s);
		const char *hit = NULL;
		for (size_t i = 0; i <= len; i++) {	/* '\0' finds the end, as in C */
			if (a0->s[i] != c)
				continue;
			hit = a0->s + i;
			if (n->ref.func->id == DT_F_STRCHR)
				break;
		}
		if (hit)
			dref_str_value(e, v, hit, strlen(hit));
		else
			null_result(v);
		return true;
	}
	case DT_F_STRTOK:
		if (!need_string(e, a1))
			return false;
		return strtok_next(e, a0, a1->s, v);
	case DT_F_LLTOSTR:
		return lltostr(e, a0->i, n->nargs == 2 ? a1->i : 10, v);
	case DT_F_BASENAME:
	case DT_F_DIRNAME:
		if (!need_string(e, a0))
			return false;
		path_part(e, a0->s, n->ref.func->id == DT_F_DIRNAME, v);
		return true;
	case DT_F_TOUPPER:
	case DT_F_TOLOWER: {
		if (!need_string(e, a0))
			return false;
		char buf[DIF_STRSIZE_MAX + 1];
		size_t len = strlen(a0->s);
		for (size_t i = 0; i <= len; i++)
			buf[i] = (char)(n->ref.func->id == DT_F_TOUPPER ?
					toupper((unsigned char)a0->s[i]) :
					tolower((unsigned char)a0->s[i]));
		dref_str_value(e, v, buf, len);
		return true;
	}
	case DT_F_STRTOLL:
		if (n->nargs == 2 && (a1->i == 1 || a1->i > 36))	/* the base is checked first */
			return dref_fail(e, DIF_FAULT_BADARG, a1->i);
		if (!need_string(e, a0))
			return false;
		return parse_int(e, a0->s, n->nargs == 2 ? a1->i : 10, v, n->type);
	case DT_F_CLEANPATH:
		if (!need_string(e, a0))
			return false;
		clean_path(e, a0->s, v);
		return true;
	case DT_F_HTONS:
	case DT_F_NTOHS:
		dref_int_value(v, n->type, htobe16((uint16_t)a0->i));
		return true;
	case DT_F_HTONL:
	case DT_F_NTOHL:
		dref_int_value(v, n->type, htobe32((uint32_t)a0->i));
		return true;
	case DT_F_HTONLL:
	case DT_F_NTOHLL:
		dref_int_value(v, n->type, htobe64(a0->i));
		return true;
	default:
		return dref_unsupported(e, "a subroutine without a deterministic value (rand, "
					"speculation, func, sym)");
	}
}
