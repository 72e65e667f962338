// SPDX-License-Identifier: BSD-2-Clause
/*
 * D's types, as far as this subset has them: integers of 1, 2, 4 and 8
 * bytes, signed or not; strings; void (actions); the thread pointer
 * curthread; pointers to integers, to void, to structs and to pointers
 * (levels of indirection over an integer, void or struct base); C's
 * structs, unions and arrays by their CTF id (dt_ctf.c names them). The typedef names scripts
 * use, the C names messages give types, the type of an integer constant,
 * the type a binary operator computes in, and the constant-folding
 * helper that truncates a value to a type.
 *
 * These follow dtrace's D compiler (libdtrace's dt_parser.c), not ISO C,
 * where the two differ: an operator on char and short operands computes
 * in char or short (no promotion to int), and a decimal constant never
 * becomes unsigned (one above LONG_MAX is an error).
 *
 * Invariant: a value of a type narrower than 64 bits is always held
 * sign- or zero-extended to 64 bits (dt_type_normalize).
 */
#include <stdio.h>
#include <string.h>
#include "dt_impl.h"

const struct dt_type dt_type_int64 = DT_INT_T(8, true, DT_TD_INT64);
const struct dt_type dt_type_uint64 = DT_INT_T(8, false, DT_TD_UINT64);
const struct dt_type dt_type_int32 = DT_INT_T(4, true, DT_TD_NONE);	/* int */
const struct dt_type dt_type_string = { .kind = DT_TYPE_STRING };
const struct dt_type dt_type_void = { .kind = DT_TYPE_VOID };
const struct dt_type dt_type_thread = { .kind = DT_TYPE_THREAD, .size = 8 };

static const struct {
	const char *name;
	struct dt_type type;
} typedefs[DT_TD_COUNT] = {
#define DT_X(id, n, sz, sg, ll) [DT_TD_##id] = { n, { .kind = DT_TYPE_INT, .size = sz, \
	.is_signed = sg, .is_llong = ll, .tdef = DT_TD_##id } },
	DT_TYPEDEFS(DT_X)
#undef DT_X
};

const struct dt_type *dt_typedef_lookup(const char *name, size_t len)
{
	for (int i = DT_TD_NONE + 1; i < DT_TD_COUNT; i++)
		if (strlen(typedefs[i].name) == len && !memcmp(typedefs[i].name, name, len))
			return &typedefs[i].type;
	return NULL;
}

struct dt_type dt_type_c_int(unsigned size, bool is_signed, bool is_llong)
{
	return (struct dt_type){ .kind = DT_TYPE_INT, .size = (uint8_t)size,
				 .is_signed = is_signed, .is_llong = size == 8 && is_llong };
}

/* The bit-width names dumps use: int64, uint8 ... */
const char *dt_type_name(struct dt_type t, char *buf, size_t size)
{
	switch (t.kind) {
	case DT_TYPE_VOID:
		snprintf(buf, size, "void");
		break;
	case DT_TYPE_STRING:
		snprintf(buf, size, "string");
		break;
	case DT_TYPE_THREAD:
		snprintf(buf, size, "thread");
		break;
	case DT_TYPE_STACK:
		if (t.size)
			snprintf(buf, size, "stack(%d)", t.size);
		else
			snprintf(buf, size, "stack()");
		break;
	case DT_TYPE_SOU:
		snprintf(buf, size, "sou%u", t.size);
		break;
	case DT_TYPE_FLOAT:
		snprintf(buf, size, "float%u", t.size * 8);
		break;
	case DT_TYPE_ARRAY:
		snprintf(buf, size, "array%u", t.size);
		break;
	case DT_TYPE_PTR: {
		char base[16];
		if (t.base_kind == DT_TYPE_SOU)
			snprintf(base, sizeof(base), "sou%u", t.base_size);
		else if (t.base_kind == DT_TYPE_FLOAT)
			snprintf(base, sizeof(base), "float%u", t.base_size * 8);
		else if (t.base_size)
			snprintf(base, sizeof(base), "%sint%d", t.base_signed ? "" : "u",
				 t.base_size * 8);
		else
			snprintf(base, sizeof(base), "void");
		snprintf(buf, size, "%s%.*s", base, t.levels > DT_MAX_PTR_LEVELS ?
			 DT_MAX_PTR_LEVELS : t.levels, "********");
		break;
	}
	case DT_TYPE_INT:
		if (t.sym == DT_SYM_FUNC)
			snprintf(buf, size, "func");
		else if (t.sym == DT_SYM_SYM)
			snprintf(buf, size, "sym");
		else
			snprintf(buf, size, "%sint%d", t.is_signed ? "" : "u", t.size * 8);
		break;
	default:
		snprintf(buf, size, "?");
		break;
	}
	return buf;
}

/* An integer's name: its typedef's, else its C name (char ... unsigned long long). */
static const char *int_name(unsigned size, bool is_signed, bool is_llong, unsigned tdef)
{
	static const char *const names[2][5] = {
		{ "unsigned char", "unsigned short", "unsigned int", "unsigned long",
		  "unsigned long long" },
		{ "char", "short", "int", "long", "long long" },
	};
	if (tdef > DT_TD_NONE && tdef < DT_TD_COUNT)
		return typedefs[tdef].name;
	unsigned i = size == 1 ? 0 : size == 2 ? 1 : size == 4 ? 2 : is_llong ? 4 : 3;
	return names[is_signed][i];
}

const char *dt_type_str(struct dt_ctx *ctx, struct dt_type t)
{
	char buf[192];
	const struct dt_ctf *ctf = ctx->prog->ctf;
	if ((t.kind == DT_TYPE_SOU || t.kind == DT_TYPE_ARRAY || t.kind == DT_TYPE_INT) && t.ctf)
		dt_ctf_name(ctf, t.ctf, buf, sizeof(buf));
	else if (t.kind == DT_TYPE_PTR && t.base_kind == DT_TYPE_SOU) {
		char base[160];
		snprintf(buf, sizeof(buf), "%s %.*s", dt_ctf_name(ctf, t.ctf, base, sizeof(base)),
			 t.levels > DT_MAX_PTR_LEVELS ? DT_MAX_PTR_LEVELS : t.levels, "********");
	} else if (t.kind == DT_TYPE_FLOAT || (t.kind == DT_TYPE_PTR &&
						 t.base_kind == DT_TYPE_FLOAT)) {
		snprintf(buf, sizeof(buf), "%s%s%.*s", (t.kind == DT_TYPE_FLOAT ? t.size :
			 t.base_size) == 4 ? "float" : "double", t.kind == DT_TYPE_PTR ? " " : "",
			 t.kind == DT_TYPE_PTR ? (int)t.levels : 0, "********");
	} else if (t.kind == DT_TYPE_INT && !t.sym)
		snprintf(buf, sizeof(buf), "%s", int_name(t.size, t.is_signed, t.is_llong, t.tdef));
	else if (t.kind == DT_TYPE_PTR)
		snprintf(buf, sizeof(buf), "%s %.*s", t.base_size ?
			 int_name(t.base_size, t.base_signed, t.is_llong, t.tdef) : "void",
			 t.levels > DT_MAX_PTR_LEVELS ? DT_MAX_PTR_LEVELS : t.levels, "********");
	else
		dt_type_name(t, buf, sizeof(buf));
	return dt_strndup(ctx, buf, strlen(buf));
}

bool dt_type_is_int(struct dt_type t)
{
	return t.kind == DT_TYPE_INT;
}

bool dt_type_is_scalar(struct dt_type t)
{
	return t.kind == DT_TYPE_INT || t.kind == DT_TYPE_THREAD || t.kind == DT_TYPE_PTR;
}

bool dt_type_equal(struct dt_type a, struct dt_type b)
{
	a.tdef = b.tdef = DT_TD_NONE;
	if (a.kind == DT_TYPE_INT)
		a.ctf = 0;		/* an enum's name: its values are ints */
	if (b.kind == DT_TYPE_INT)
		b.ctf = 0;
	return !memcmp(&a, &b, sizeof(a));
}

struct dt_type dt_type_pointer_to(struct dt_type pointee)
{
	if (pointee.kind == DT_TYPE_PTR) {
		pointee.levels++;
		return pointee;
	}
	if (pointee.kind == DT_TYPE_SOU || pointee.kind == DT_TYPE_FLOAT)
		return (struct dt_type){ .kind = DT_TYPE_PTR, .size = 8, .levels = 1,
					 .base_kind = pointee.kind, .base_size = pointee.size,
					 .ctf = pointee.ctf };
	bool is_int = pointee.kind == DT_TYPE_INT;
	return (struct dt_type){ .kind = DT_TYPE_PTR, .size = 8, .levels = 1,
				 .base_size = is_int ? pointee.size : 0,
				 .base_signed = is_int && pointee.is_signed,
				 .is_llong = is_int && pointee.is_llong,
				 .tdef = is_int ? pointee.tdef : DT_TD_NONE };
}

unsigned dt_type_pointee_size(struct dt_type ptr)
{
	return ptr.levels > 1 ? 8 : ptr.base_size;
}

struct dt_type dt_type_pointee(struct dt_type ptr)
{
	if (ptr.levels > 1) {
		ptr.levels--;
		return ptr;
	}
	if (ptr.base_kind == DT_TYPE_SOU || ptr.base_kind == DT_TYPE_FLOAT)
		return (struct dt_type){ .kind = ptr.base_kind, .size = ptr.base_size,
					 .ctf = ptr.ctf };
	if (!ptr.base_size)
		return dt_type_void;
	struct dt_type t = dt_type_c_int(ptr.base_size, ptr.base_signed, ptr.is_llong);
	t.tdef = ptr.tdef;	/* *(uint64_t *)p is a uint64_t, for %llx and messages */
	return t;
}

struct dt_type dt_type_promote(struct dt_type a, struct dt_type b)
{
	/* dtrace's rank: the bits, plus one for unsigned. */
	unsigned ra = a.size * 8u + !a.is_signed, rb = b.size * 8u + !b.is_signed;
	struct dt_type r = ra > rb ? a : rb > ra ? b : a.is_llong || !b.is_llong ? a : b;
	r.sym = DT_SYM_NONE;	/* func() + 1 is an address, no longer a symbol */
	return r;
}

bool dt_int_literal_type(uint64_t value, bool decimal, const char *suffix, struct dt_type *t)
{
	static const struct {
		uint64_t max;
		uint8_t size;
		bool is_signed, is_llong;
	} ints[] = {
		{ INT32_MAX, 4, true, false },  { UINT32_MAX, 4, false, false },
		{ INT64_MAX, 8, true, false },  { UINT64_MAX, 8, false, false },
		{ INT64_MAX, 8, true, true },   { UINT64_MAX, 8, false, true },
	};
	unsigned i = 0;
	for (const char *c = suffix; *c; c++)
		i += *c == 'u' || *c == 'U' ? 1 : 2;
	/* As dtrace: only a lower-case u first keeps a hex constant off signed types. */
	unsigned step = decimal || suffix[0] == 'u' ? 2 : 1;
	for (; i < sizeof(ints) / sizeof(ints[0]); i += step)
		if (value <= ints[i].max) {
			*t = dt_type_c_int(ints[i].size, ints[i].is_signed, ints[i].is_llong);
			return true;
		}
	return false;
}

bool dt_type_same_class(struct dt_type a, struct dt_type b)
{
	return a.kind == b.kind;
}

uint64_t dt_type_normalize(struct dt_type t, uint64_t v)
{
	if (t.kind != DT_TYPE_INT || t.size >= 8)
		return v;
	unsigned bits = t.size * 8u;
	uint64_t mask = (UINT64_C(1) << bits) - 1;
	v &= mask;
	if (t.is_signed && (v >> (bits - 1)) & 1)
		v |= ~mask;
	return v;
}
