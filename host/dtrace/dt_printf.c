// SPDX-License-Identifier: BSD-2-Clause
/*
 * printf and printa formats, as dtrace's libdtrace reads and checks
 * them: a format splits into conversions (flags, width, precision, an
 * h/l/ll/L size prefix and the conversion character, dtrace's '?' width
 * and printa's '@' anywhere among them), each looked up by its name
 * ("d", "hx", "lld"...) in dtrace's dictionary, then matched with the
 * values it prints: printf's arguments, or printa's keys and the
 * aggregation's value.
 *
 * The rules are dtrace's (dt_printf.c's pfcheck_* functions): d i u o x
 * X take any integer (d and i of an unsigned print as u); c a char,
 * short or int; a size prefix names a C type exactly (%hd a short, %ld a
 * long such as int64_t, %lld a long long such as hrtime_t; %hx %lx and
 * %llx either signedness, %llx also int64_t and uint64_t); p and a
 * pointers or integers; s strings; Y a 64-bit integer; k a stack() key
 * (printa only: no other value is a stack). An aggregation's
 * value is a uint64_t for count() and an int64_t for the others. The
 * messages are dtrace's, its prototype mismatches on several lines.
 * long double, wide characters, %C %S and %T are refused: the
 * consumer does not print them.
 *
 * Invariant: a returned format's conversions (%% aside) are in text
 * order, each one's offset/length covers exactly its "%..." text.
 */
#include <stdio.h>
#include <string.h>
#include "dt_impl.h"

/* What a conversion accepts (dtrace's pfcheck_* functions). */
enum check {
	CK_PCT,			/* %%: nothing */
	CK_XINT,		/* any integer */
	CK_CSI,			/* an integer of at most 4 bytes */
	CK_ADDR,		/* a pointer or an integer */
	CK_STR,			/* a string */
	CK_TIME,		/* a 64-bit integer */
	CK_SIZED,		/* the integer size/signed/llong says (the h, l, ll names) */
	CK_SIZED_EITHER,	/* the same, either signedness (hx, lx) */
	CK_LLX,			/* llx: long long either way, or int64_t / uint64_t */
	CK_FLOAT,		/* a float or double */
	CK_STACK,		/* a stack() key of printa */
	CK_REFUSED,		/* dtrace has it, the consumer cannot print it */
};

/* A conversion that checks no size, one that does (bytes, signed, long long). */
#define C(name, check, proto) { name, check, proto, 0, false, false }
#define S(name, check, proto, size, sg, ll) { name, check, proto, size, sg, ll }
#define XINT "char, short, int, long, or long long"
#define FLOAT "long double is not supported: print a double"
#define WIDE "D here has no wide characters"

static const struct conversion {
	const char *name;
	enum check check;
	const char *proto;		/* dtrace's prototype text, or why it is refused */
	uint8_t size;			/* CK_SIZED*: bytes */
	bool is_signed, is_llong;
} conversions[] = {
	C("%", CK_PCT, "void"),
	C("a", CK_ADDR, "pointer or integer"), C("A", CK_ADDR, "pointer or integer"),
	C("c", CK_CSI, "char, short, or int"),
	C("d", CK_XINT, XINT), C("i", CK_XINT, XINT), C("o", CK_XINT, XINT),
	C("u", CK_XINT, XINT), C("x", CK_XINT, XINT), C("X", CK_XINT, XINT),
	S("hd", CK_SIZED, "short", 2, true, false), S("hi", CK_SIZED, "short", 2, true, false),
	S("ho", CK_SIZED, "unsigned short", 2, false, false),
	S("hu", CK_SIZED, "unsigned short", 2, false, false),
	S("hx", CK_SIZED_EITHER, "short", 2, false, false),
	S("hX", CK_SIZED_EITHER, "short", 2, false, false),
	S("ld", CK_SIZED, "long", 8, true, false), S("li", CK_SIZED, "long", 8, true, false),
	S("lo", CK_SIZED, "unsigned long", 8, false, false),
	S("lu", CK_SIZED, "unsigned long", 8, false, false),
	S("lx", CK_SIZED_EITHER, "long", 8, false, false),
	S("lX", CK_SIZED_EITHER, "long", 8, false, false),
	S("lld", CK_SIZED, "long long", 8, true, true),
	S("lli", CK_SIZED, "long long", 8, true, true),
	S("llo", CK_SIZED, "unsigned long long", 8, false, true),
	S("llu", CK_SIZED, "unsigned long long", 8, false, true),
	C("llx", CK_LLX, "long long"), C("llX", CK_LLX, "long long"),
	C("p", CK_ADDR, "pointer or integer"),
	C("s", CK_STR, "char [] or string (or use stringof)"),
	C("Y", CK_TIME, "int64_t"),
	C("e", CK_FLOAT, "float or double"), C("E", CK_FLOAT, "float or double"),
	C("f", CK_FLOAT, "float or double"), C("g", CK_FLOAT, "float or double"),
	C("G", CK_FLOAT, "float or double"), C("Le", CK_REFUSED, FLOAT),
	C("LE", CK_REFUSED, FLOAT), C("Lf", CK_REFUSED, FLOAT), C("Lg", CK_REFUSED, FLOAT),
	C("LG", CK_REFUSED, FLOAT),
	C("lc", CK_REFUSED, WIDE), C("ls", CK_REFUSED, WIDE), C("wc", CK_REFUSED, WIDE),
	C("ws", CK_REFUSED, WIDE),
	C("C", CK_REFUSED, "use %c"),
	C("S", CK_REFUSED, "use %s"),
	C("T", CK_REFUSED, "use %Y"),
	C("k", CK_STACK, "stack"),
};

static const struct conversion *lookup(const char *name)
{
	for (size_t i = 0; i < sizeof(conversions) / sizeof(conversions[0]); i++)
		if (!strcmp(conversions[i].name, name))
			return &conversions[i];
	return NULL;
}

static bool accepts(const struct conversion *c, struct dt_type t)
{
	bool is_int = t.kind == DT_TYPE_INT;
	switch (c->check) {
	case CK_XINT:
		return is_int;
	case CK_CSI:
		return is_int && t.size <= 4;
	case CK_ADDR:
		return is_int || t.kind == DT_TYPE_PTR || t.kind == DT_TYPE_THREAD;
	case CK_STR:
		return t.kind == DT_TYPE_STRING;
	case CK_FLOAT:
		return t.kind == DT_TYPE_FLOAT;
	case CK_STACK:
		return t.kind == DT_TYPE_STACK;
	case CK_TIME:
		return is_int && t.size == 8;
	case CK_SIZED:
		return is_int && t.size == c->size && t.is_signed == c->is_signed &&
		       t.is_llong == c->is_llong;
	case CK_SIZED_EITHER:
		return is_int && t.size == c->size && !t.is_llong;
	case CK_LLX:
		return is_int && t.size == 8 && (t.is_llong || t.tdef == DT_TD_INT64 ||
						 t.tdef == DT_TD_UINT64);
	default:
		return false;
	}
}

/* dtrace's one-line complaint about a format, which names the conversion by number. */
#define format_error(ctx, loc, ...) dt_error(ctx, loc, D_PRINTF_CONV, __VA_ARGS__)

/*
 * One conversion from text[i] (just after its '%') on, as dtrace's
 * dt_printf_create reads it. Returns the index after it, or 0 after
 * reporting an error.
 */
static size_t parse_conv(struct dt_ctx *ctx, struct dt_loc loc, const char *fname,
			 const char *text, size_t len, size_t i, bool allow_agg,
			 struct dt_conv *cv)
{
	size_t namelen = 0, digits = 0;
	bool dot = false;

	for (; i < len; i++) {
		char c = text[i];
		if (c >= '0' && c <= '9') {
			if (!dot && !digits && c == '0')
				continue;	/* the 0 flag */
			while (i + 1 < len && text[i + 1] >= '0' && text[i + 1] <= '9')
				i++;
			digits++;
		} else if (c == '*') {
			bool *star = dot ? &cv->star_precision : &cv->star_width;
			if (*star) {
				format_error(ctx, loc, "format conversion #%d has more than one '*' "
					     "specified for the output %s", cv->number,
					     dot ? "precision" : "width");
				return 0;
			}
			*star = true;
		} else if (c == '.') {
			if (dot) {
				format_error(ctx, loc, "format conversion #%d has more than one '.' "
					     "specified", cv->number);
				return 0;
			}
			dot = true;
			digits = 0;
		} else if (c == '@') {
			if (!allow_agg) {
				dt_error(ctx, loc, D_PRINTF_AGG_CONV, "%%@ conversion requires an "
					 "aggregation and is not for use with %s( )", fname);
				return 0;
			}
			cv->agg_value = true;
		} else if (c == '$') {
			format_error(ctx, loc, "format conversion #%d uses unsupported positional "
				     "format (%%n$)", cv->number);
			return 0;
		} else if (c == '%' && text[i - 1] != '%') {
			format_error(ctx, loc, "format conversion #%d cannot be combined with other "
				     "format flags: %%%%", cv->number);
			return 0;
		} else if (c == 'h' || c == 'l' || c == 'L' || c == 'w') {
			if (namelen < sizeof(cv->name) - 2)
				cv->name[namelen++] = c;
		} else if (!strchr("#+- ?'", c)) {
			cv->name[namelen] = c;
			cv->conv = c;
			return i + 1;
		}
	}
	format_error(ctx, loc, "format conversion #%d name expected before end of format string",
		     cv->number);
	return 0;
}

struct dt_format *dt_format_parse(struct dt_ctx *ctx, struct dt_loc loc, const char *fname,
				  const char *text, size_t len, bool allow_agg)
{
	struct dt_format *f = dt_alloc(ctx, sizeof(*f));
	int cap = 0, number = 0;

	f->text = text;
	f->len = len;
	for (size_t i = 0; i < len; i++)
		cap += text[i] == '%';
	f->convs = dt_alloc(ctx, sizeof(struct dt_conv) * (size_t)(cap ? cap : 1));

	for (size_t i = 0; i < len;) {
		if (text[i] != '%') {
			i++;
			continue;
		}
		struct dt_conv cv = { .offset = i, .arg = -1, .number = ++number };
		size_t end = parse_conv(ctx, loc, fname, text, len, i + 1, allow_agg, &cv);
		if (!end)
			return NULL;
		cv.length = end - i;
		i = end;
		const struct conversion *c = lookup(cv.name);
		if (!c) {
			format_error(ctx, loc, "format conversion #%d is undefined: %%%s", cv.number,
				     cv.name);
			return NULL;
		}
		if (c->check == CK_PCT)
			continue;
		if (c->check == CK_REFUSED) {
			format_error(ctx, loc, "%s( ) conversion #%d (%%%s) is not supported: %s", fname,
				     cv.number, cv.name, c->proto);
			return NULL;
		}
		f->convs[f->nconv++] = cv;
	}
	return f;
}

/* The D_PRINTF_ARG_TYPE of a value a conversion refuses, dtrace's words and lines. */
static void arg_type_error(struct dt_ctx *ctx, struct dt_loc loc, const char *fname,
			   const char *what, const struct dt_conv *cv, const char *proto,
			   struct dt_type t)
{
	dt_error(ctx, loc, D_PRINTF_ARG_TYPE, "%s( ) %s is incompatible with conversion #%d "
		 "prototype:\n\tconversion: %%%s\n\t prototype: %s\n\t  argument: %s", fname, what,
		 cv->number, cv->name, proto, dt_type_str(ctx, t));
}

bool dt_format_check(struct dt_ctx *ctx, struct dt_format *f, const struct dt_format_values *v)
{
	int next = 0, agg = 0;
	char what[32];

	for (int i = 0; i < f->nconv; i++) {
		struct dt_conv *cv = &f->convs[i];
		const struct conversion *c = lookup(cv->name);
		/* dtrace takes a '*' precision's value after a '*' width's. */
		const char *stars[2] = { cv->star_width ? "*" : ".*", ".*" };
		for (int s = 0; s < cv->star_width + cv->star_precision; s++, next++) {
			if (next >= v->n) {
				dt_error(ctx, v->loc, D_PRINTF_DYN_PROTO, "%s( ) prototype mismatch: "
					 "conversion #%d (%%%s) is missing a corresponding \"%s\" "
					 "argument", v->fname, cv->number, cv->name, stars[s]);
				return false;
			}
			if (!dt_type_is_int(v->types[next])) {
				dt_error(ctx, v->locs ? v->locs[next] : v->loc, D_PRINTF_DYN_TYPE,
					 "%s( ) argument #%d is incompatible with conversion #%d "
					 "prototype:\n\tconversion: %% %s %s\n\t prototype: int\n\t  "
					 "argument: %s", v->fname, next + 2, cv->number, stars[s],
					 cv->name, dt_type_str(ctx, v->types[next]));
				return false;
			}
		}
		if (cv->agg_value) {
			if (!accepts(c, v->aggtype)) {
				arg_type_error(ctx, v->loc, v->fname, "aggregating action", cv, c->proto,
					       v->aggtype);
				return false;
			}
			cv->arg = agg < v->naggs - 1 ? agg++ : v->naggs - 1;
			continue;
		}
		if (next >= v->n) {
			dt_error(ctx, v->loc, D_PRINTF_ARG_PROTO, "%s( ) prototype mismatch: conversion "
				 "#%d (%%%s) is missing a corresponding value argument", v->fname,
				 cv->number, cv->name);
			return false;
		}
		if (!accepts(c, v->types[next])) {
			snprintf(what, sizeof(what), "argument #%d", next + 2);
			arg_type_error(ctx, v->locs ? v->locs[next] : v->loc, v->fname, what, cv,
				       c->proto, v->types[next]);
			return false;
		}
		cv->arg = next++ + v->arg_offset;
	}
	if (v->exact && next < v->n) {
		dt_error(ctx, v->locs ? v->locs[next] : v->loc, D_PRINTF_ARG_EXTRA, "%s( ) prototype "
			 "mismatch: only %d arguments required by this format string", v->fname, next);
		return false;
	}
	return true;
}
