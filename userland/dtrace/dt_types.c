// SPDX-License-Identifier: BSD-2-Clause
/*
 * D's types, as far as this subset has them: integers of 1, 2, 4 and 8
 * bytes, signed or not; strings; void (actions); the thread pointer
 * curthread; pointers to integers, to void and to pointers (levels of
 * indirection over an integer or void base). The typedef names scripts use, integer promotion, and the
 * constant-folding helper that truncates a value to a type.
 *
 * Invariant: arithmetic is done on 64 bits; a value of a narrower type is
 * always held sign- or zero-extended to 64 bits (dt_type_normalize).
 */
#include <stdio.h>
#include <string.h>
#include "dt_impl.h"

#define INT_T(sz, sg) { .kind = DT_TYPE_INT, .size = sz, .is_signed = sg }

const struct dt_type dt_type_int64 = INT_T(8, true);
const struct dt_type dt_type_uint64 = INT_T(8, false);
const struct dt_type dt_type_int32 = INT_T(4, true);
const struct dt_type dt_type_string = { .kind = DT_TYPE_STRING };
const struct dt_type dt_type_void = { .kind = DT_TYPE_VOID };
const struct dt_type dt_type_thread = { .kind = DT_TYPE_THREAD, .size = 8 };

/* Typedef names accepted wherever a type is (declarations and casts). */
static const struct {
	const char *name;
	struct dt_type type;
} typedefs[] = {
	{ "int8_t", INT_T(1, true) },    { "uint8_t", INT_T(1, false) },
	{ "int16_t", INT_T(2, true) },   { "uint16_t", INT_T(2, false) },
	{ "int32_t", INT_T(4, true) },   { "uint32_t", INT_T(4, false) },
	{ "int64_t", INT_T(8, true) },   { "uint64_t", INT_T(8, false) },
	{ "intptr_t", INT_T(8, true) },  { "uintptr_t", INT_T(8, false) },
	{ "size_t", INT_T(8, false) },   { "ssize_t", INT_T(8, true) },
	{ "pid_t", INT_T(4, true) },     { "id_t", INT_T(4, true) },
	{ "processorid_t", INT_T(4, true) }, { "hrtime_t", INT_T(8, true) },
	{ "uchar_t", INT_T(1, false) },  { "ushort_t", INT_T(2, false) },
	{ "uint_t", INT_T(4, false) },   { "ulong_t", INT_T(8, false) },
	{ "u_longlong_t", INT_T(8, false) }, { "longlong_t", INT_T(8, true) },
	{ "tid_t", INT_T(8, false) },
};

const struct dt_type *dt_typedef_lookup(const char *name, size_t len)
{
	for (size_t i = 0; i < sizeof(typedefs) / sizeof(typedefs[0]); i++)
		if (strlen(typedefs[i].name) == len && !memcmp(typedefs[i].name, name, len))
			return &typedefs[i].type;
	return NULL;
}

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
	case DT_TYPE_PTR: {
		char base[16];
		if (t.base_size)
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

const char *dt_type_str(struct dt_ctx *ctx, struct dt_type t)
{
	char buf[32];
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

struct dt_type dt_type_pointer_to(struct dt_type pointee)
{
	if (pointee.kind == DT_TYPE_PTR) {
		pointee.levels++;
		return pointee;
	}
	bool is_int = pointee.kind == DT_TYPE_INT;
	return (struct dt_type){ .kind = DT_TYPE_PTR, .size = 8, .levels = 1,
				 .base_size = is_int ? pointee.size : 0,
				 .base_signed = is_int && pointee.is_signed };
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
	if (!ptr.base_size)
		return dt_type_void;
	return (struct dt_type){ .kind = DT_TYPE_INT, .size = ptr.base_size,
				 .is_signed = ptr.base_signed };
}

struct dt_type dt_type_promote(struct dt_type a, struct dt_type b)
{
	bool a_u64 = a.size == 8 && !a.is_signed;
	bool b_u64 = b.size == 8 && !b.is_signed;
	return a_u64 || b_u64 ? dt_type_uint64 : dt_type_int64;
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
