// SPDX-License-Identifier: BSD-2-Clause
/*
 * printf and printa formats: splits a format into its conversions
 * (flags, width, precision, length modifier, conversion character) and
 * says which value types each conversion prints. The checker matches
 * them with printf's arguments or printa's keys.
 *
 * Conversions: d i (signed integers), u o x X (integers, also pointers),
 * c (a character), s (strings), p (pointers), a A (kernel addresses as
 * symbol+offset), Y (walltimestamp as a date); %@ in printa formats is
 * the aggregation's value. Floating point (e f g), %k and %n are refused.
 *
 * Invariant: a returned format's conversions are in text order, each
 * one's offset/length covers exactly its "%..." text.
 */
#include <stdio.h>
#include <string.h>
#include "dt_impl.h"

enum {
	ACCEPT_INT = 1,
	ACCEPT_STRING = 2,
	ACCEPT_POINTER = 4,
};

static const struct {
	char conv;
	unsigned accepts;
	bool takes_length;		/* h, l, ll, ... are meaningful */
	const char *want;
} conversions[] = {
	{ 'd', ACCEPT_INT, true, "an integer" },
	{ 'i', ACCEPT_INT, true, "an integer" },
	{ 'u', ACCEPT_INT | ACCEPT_POINTER, true, "an integer" },
	{ 'o', ACCEPT_INT | ACCEPT_POINTER, true, "an integer" },
	{ 'x', ACCEPT_INT | ACCEPT_POINTER, true, "an integer" },
	{ 'X', ACCEPT_INT | ACCEPT_POINTER, true, "an integer" },
	{ 'c', ACCEPT_INT, false, "an integer (a character)" },
	{ 's', ACCEPT_STRING, false, "a string" },
	{ 'p', ACCEPT_INT | ACCEPT_POINTER, false, "a pointer or an integer" },
	{ 'a', ACCEPT_INT, false, "a kernel address (an integer)" },
	{ 'A', ACCEPT_INT, false, "a kernel address (an integer)" },
	{ 'Y', ACCEPT_INT, false, "a time in nanoseconds since the epoch (an integer)" },
};

static const struct {
	char conv;
	const char *why;
} refused_conversions[] = {
	{ 'e', "floating point is not supported" }, { 'E', "floating point is not supported" },
	{ 'f', "floating point is not supported" }, { 'F', "floating point is not supported" },
	{ 'g', "floating point is not supported" }, { 'G', "floating point is not supported" },
	{ 'k', "print stacks with stack()" }, { 'n', "it writes to memory" },
	{ 'S', "use %s" }, { 'T', "it prints types, which D here does not have" },
};

static const char *const length_modifiers[] = { "hh", "h", "ll", "l", "j", "z", "t", "L" };

static int conversion_index(char c)
{
	for (size_t i = 0; i < sizeof(conversions) / sizeof(conversions[0]); i++)
		if (conversions[i].conv == c)
			return (int)i;
	return -1;
}

bool dt_conv_accepts(const struct dt_conv *cv, struct dt_type t, const char **want)
{
	int i = conversion_index(cv->conv);
	if (i < 0) {
		*want = "nothing";
		return false;
	}
	*want = conversions[i].want;
	unsigned a = conversions[i].accepts;
	return (t.kind == DT_TYPE_INT && (a & ACCEPT_INT)) ||
	       (t.kind == DT_TYPE_STRING && (a & ACCEPT_STRING)) ||
	       ((t.kind == DT_TYPE_THREAD || t.kind == DT_TYPE_PTR) && (a & ACCEPT_POINTER));
}

static void bad_conv(struct dt_ctx *ctx, struct dt_loc loc, const char *fname, int n,
		     const char *spec, size_t len, const char *why)
{
	dt_error(ctx, loc, D_PRINTF_CONV, "%s( ) conversion #%d %s: %s", fname, n,
		 dt_quote(ctx, spec, len, 24), why);
}

struct dt_format *dt_format_parse(struct dt_ctx *ctx, struct dt_loc loc, const char *fname,
				  const char *text, size_t len, bool allow_agg)
{
	struct dt_format *f = dt_alloc(ctx, sizeof(*f));
	int cap = 0;

	f->text = text;
	f->len = len;
	for (size_t i = 0; i < len; i++)
		cap += text[i] == '%';
	f->convs = dt_alloc(ctx, sizeof(struct dt_conv) * (size_t)(cap ? cap : 1));

	for (size_t i = 0; i < len; i++) {
		if (text[i] != '%')
			continue;
		size_t start = i++;
		if (i < len && text[i] == '%')
			continue;
		struct dt_conv cv = { .offset = start, .arg = -1 };
		int n = f->nconv + 1;
		while (i < len && strchr("-+ #0'@", text[i]) && text[i]) {
			if (text[i] == '@') {
				if (!allow_agg) {
					dt_error(ctx, loc, D_PRINTF_AGG_CONV, "%s( ) conversion #%d: %%@ "
						 "prints an aggregation's value and is only valid in "
						 "printa( )", fname, n);
					return NULL;
				}
				cv.agg_value = true;
			}
			i++;
		}
		if (i < len && text[i] == '*') {
			cv.star_width = true;
			i++;
		}
		while (i < len && text[i] >= '0' && text[i] <= '9')
			i++;
		if (i < len && text[i] == '.') {
			i++;
			if (i < len && text[i] == '*') {
				cv.star_precision = true;
				i++;
			}
			while (i < len && text[i] >= '0' && text[i] <= '9')
				i++;
		}
		for (size_t m = 0; m < sizeof(length_modifiers) / sizeof(*length_modifiers); m++) {
			size_t ml = strlen(length_modifiers[m]);
			if (i + ml <= len && !memcmp(text + i, length_modifiers[m], ml)) {
				memcpy(cv.length_mod, length_modifiers[m], ml);
				i += ml;
				break;
			}
		}
		if (i >= len) {
			bad_conv(ctx, loc, fname, n, text + start, len - start,
				 "the format ends inside the conversion");
			return NULL;
		}
		cv.conv = text[i];
		cv.length = i + 1 - start;
		const char *spec = text + start;
		for (size_t r = 0; r < sizeof(refused_conversions) / sizeof(*refused_conversions); r++)
			if (refused_conversions[r].conv == cv.conv) {
				bad_conv(ctx, loc, fname, n, spec, cv.length, refused_conversions[r].why);
				return NULL;
			}
		int ci = conversion_index(cv.conv);
		if (ci < 0) {
			bad_conv(ctx, loc, fname, n, spec, cv.length, "not a valid conversion");
			return NULL;
		}
		if (cv.length_mod[0] && !conversions[ci].takes_length) {
			bad_conv(ctx, loc, fname, n, spec, cv.length,
				 "a length modifier is only valid with d, i, u, o, x and X");
			return NULL;
		}
		if (cv.agg_value && conversions[ci].accepts == ACCEPT_STRING) {
			bad_conv(ctx, loc, fname, n, spec, cv.length,
				 "an aggregation's value is an integer");
			return NULL;
		}
		f->convs[f->nconv++] = cv;
	}
	return f;
}
