// SPDX-License-Identifier: BSD-2-Clause
/*
 * The C types a D program declares, added to its CTF dictionary
 * (dt_ctf.c): struct and union definitions with their layout, enums,
 * typedefs, fixed-size array types, and the CTF type of any type the
 * compiler holds (a member's, a typedef's).
 *
 * Layout follows gcc on the kernel's ABIs (x86_64 and sparc64 agree
 * here): a member starts at the next multiple of its alignment (an
 * integer's or pointer's size, a struct's or array's own alignment); a
 * bit-field takes the next bits of the current unit of its declared type
 * unless it would straddle that unit, then starts the next one; a
 * zero-width bit-field closes the unit; the struct's size is rounded up
 * to its largest alignment. A union's members all start at 0.
 *
 * Errors carry dtrace's tags: D_DECL_TYPERED (a second definition),
 * D_DECL_INCOMPLETE (a member of a type only declared), D_DECL_BFTYPE,
 * D_DECL_BFSIZE, D_DECL_IDRED (two members or enumerators of one name),
 * D_DECL_ENOFLOW (an enumerator past INT_MAX).
 */
#include <ctf-api.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include "dt_impl.h"

static ctf_dict_t *dict(struct dt_ctx *ctx)
{
	return dt_ctf_dict(ctx->prog->ctf);
}

static void ctf_failed(struct dt_ctx *ctx, struct dt_loc loc, const char *what)
{
	dt_error(ctx, loc, D_UNKNOWN, "failed to define %s: %s", what,
		 ctf_errmsg(ctf_errno(dict(ctx))));
}

/* An integer of t's size and signedness in the dictionary, named as dtrace names it. */
static ctf_id_t integer_id(struct dt_ctx *ctx, struct dt_type t)
{
	static const char *const names[2][4] = {
		{ "unsigned char", "unsigned short", "unsigned int", "unsigned long" },
		{ "char", "short", "int", "long" },
	};
	ctf_dict_t *d = dict(ctx);
	unsigned i = t.size == 1 ? 0 : t.size == 2 ? 1 : t.size == 4 ? 2 : 3;
	const char *name = names[t.is_signed][i];
	ctf_id_t id = ctf_lookup_by_name(d, name);
	if (id != CTF_ERR && ctf_type_kind(d, id) == CTF_K_INTEGER &&
	    ctf_type_size(d, id) == (ssize_t)t.size)
		return id;	/* kind and size are safe to ask the child (dt_ctf.c) */
	ctf_encoding_t enc = { .cte_format = (t.is_signed ? CTF_INT_SIGNED : 0) |
				(t.size == 1 ? CTF_INT_CHAR : 0), .cte_bits = t.size * 8u };
	return ctf_add_integer(d, CTF_ADD_ROOT, name, &enc);
}

static ctf_id_t void_id(struct dt_ctx *ctx)
{
	ctf_dict_t *d = dict(ctx);
	ctf_id_t id = ctf_lookup_by_name(d, "void");
	if (id != CTF_ERR)
		return id;
	ctf_encoding_t enc = { .cte_format = CTF_INT_SIGNED, .cte_bits = 0 };
	return ctf_add_integer(d, CTF_ADD_ROOT, "void", &enc);
}

long dt_ctf_id_of(struct dt_ctx *ctx, struct dt_type t)
{
	ctf_dict_t *d = dict(ctx);
	switch (t.kind) {
	case DT_TYPE_INT:
		return t.ctf ? (long)t.ctf : (long)integer_id(ctx, t);
	case DT_TYPE_SOU:
	case DT_TYPE_ARRAY:
		return t.ctf;
	case DT_TYPE_FLOAT: {
		if (t.ctf)
			return t.ctf;
		const char *name = t.size == 4 ? "float" : "double";
		ctf_id_t id = ctf_lookup_by_name(d, name);
		ctf_encoding_t enc = { .cte_format = t.size == 4 ? CTF_FP_SINGLE : CTF_FP_DOUBLE,
				       .cte_bits = t.size * 8u };
		return id != CTF_ERR ? (long)id : (long)ctf_add_float(d, CTF_ADD_ROOT, name, &enc);
	}
	case DT_TYPE_VOID:
		return (long)void_id(ctx);
	case DT_TYPE_PTR: case DT_TYPE_THREAD: {
		ctf_id_t base;
		unsigned levels = t.kind == DT_TYPE_THREAD ? 1 : t.levels;
		if (t.kind == DT_TYPE_THREAD)
			base = void_id(ctx);
		else if (t.base_kind == DT_TYPE_SOU)
			base = t.ctf;
		else if (t.base_kind == DT_TYPE_FLOAT)
			base = (ctf_id_t)dt_ctf_id_of(ctx, dt_type_pointee((struct dt_type){
				.kind = DT_TYPE_PTR, .levels = 1, .base_kind = DT_TYPE_FLOAT,
				.base_size = t.base_size, .ctf = t.ctf }));
		else if (t.base_size)
			base = integer_id(ctx, dt_type_c_int(t.base_size, t.base_signed, t.is_llong));
		else
			base = void_id(ctx);
		for (unsigned i = 0; i < levels && base != CTF_ERR; i++)
			base = ctf_add_pointer(d, CTF_ADD_NONROOT, base);
		return base == CTF_ERR ? -1 : (long)base;
	}
	default:
		return -1;		/* strings and stacks have no C type */
	}
}

/* ---- struct and union ---- */

bool dt_ctf_sou_ref(struct dt_ctx *ctx, bool is_union, const char *name, struct dt_type *t)
{
	char cname[160];
	snprintf(cname, sizeof(cname), "%s %s", is_union ? "union" : "struct", name);
	ctf_dict_t *d = dict(ctx);
	ctf_id_t id = ctf_lookup_by_name(d, cname);
	if (id == CTF_ERR)
		id = ctf_add_forward(d, CTF_ADD_ROOT, name, is_union ? CTF_K_UNION : CTF_K_STRUCT);
	if (id == CTF_ERR)
		return false;
	*t = dt_ctf_type(ctx, (uint32_t)id);
	return true;
}

static unsigned align_of(struct dt_ctx *ctx, struct dt_type t)
{
	if (t.kind == DT_TYPE_INT || t.kind == DT_TYPE_PTR || t.kind == DT_TYPE_THREAD ||
	    t.kind == DT_TYPE_FLOAT)
		return t.size;
	ssize_t a = ctf_type_align(dt_ctf_owner(ctx->prog->ctf, t.ctf), t.ctf);
	return a > 0 ? (unsigned)a : 1;
}

static uint64_t round_up(uint64_t v, uint64_t to)
{
	return (v + to - 1) / to * to;
}

bool dt_ctf_sou_define(struct dt_ctx *ctx, bool is_union, const char *name,
		       struct dt_member_decl *members, int n, struct dt_loc loc,
		       struct dt_type *out)
{
	ctf_dict_t *d = dict(ctx);
	const char *kind = is_union ? "union" : "struct";
	char cname[160];
	snprintf(cname, sizeof(cname), "%s %s", kind, name ? name : "");
	ctf_id_t old = name ? ctf_lookup_by_name(d, cname) : CTF_ERR;
	/* A kernel type of the name is shadowed, as D's own types come first; our own clash. */
	if (old != CTF_ERR && dt_ctf_owner(ctx->prog->ctf, (uint32_t)old) == d &&
	    ctf_type_kind(d, old) != CTF_K_FORWARD) {
		dt_error(ctx, loc, D_DECL_TYPERED, "type redeclared: %s", cname);
		return false;
	}
	uint64_t bit = 0, size_bits = 0;
	unsigned align = 1;
	uint64_t offsets[DT_MAX_MEMBERS];
	for (int i = 0; i < n; i++) {
		const struct dt_member_decl *m = &members[i];
		for (int j = 0; j < i && m->name; j++)
			if (members[j].name && !strcmp(members[j].name, m->name)) {
				dt_error(ctx, m->loc, D_DECL_IDRED, "identifier redeclared: %s", m->name);
				return false;
			}
		if ((m->type.kind == DT_TYPE_SOU || m->type.kind == DT_TYPE_ARRAY) && !m->type.size) {
			dt_error(ctx, m->loc, D_DECL_INCOMPLETE, "incomplete struct/union/enum %s: %s",
				 dt_type_str(ctx, m->type), m->name ? m->name : "");
			return false;
		}
		if (m->bits >= 0 && m->type.kind != DT_TYPE_INT) {
			dt_error(ctx, m->loc, D_DECL_BFTYPE, "invalid type for bit-field: %s",
				 m->name ? m->name : "");
			return false;
		}
		if (m->type.kind == DT_TYPE_VOID) {
			dt_error(ctx, m->loc, D_DECL_VOIDOBJ, "cannot have void member: %s",
				 m->name ? m->name : "");
			return false;
		}
		if (m->type.kind == DT_TYPE_STRING &&	/* as dtrace: char[256], the default strsize */
		    !dt_ctf_array_of(ctx, dt_type_c_int(1, true, false), DT_STRING_MEMBER_SIZE,
				     m->loc, &members[i].type))
			return false;
		unsigned a = align_of(ctx, m->type);
		if (a > align)
			align = a;
		if (is_union)
			bit = 0;
		if (m->bits >= 0) {
			if ((unsigned)m->bits > m->type.size * 8u) {
				dt_error(ctx, m->loc, D_DECL_BFSIZE, "bit-field too big for type: %s",
					 m->name ? m->name : "");
				return false;
			}
			uint64_t unit = m->type.size * 8u;
			if (m->bits == 0 || bit / unit != (bit + (uint64_t)m->bits - 1) / unit)
				bit = round_up(bit, unit);
			offsets[i] = bit;
			bit += (uint64_t)m->bits;
		} else {
			bit = round_up(bit, a * 8u);
			offsets[i] = bit;
			bit += (uint64_t)m->type.size * 8u;
		}
		if (bit > size_bits)
			size_bits = bit;
	}
	uint64_t size = round_up((size_bits + 7) / 8, align);
	if (size > UINT32_MAX / 8) {
		dt_error(ctx, loc, D_DECL_ARRSUB, "%s is too large", cname);
		return false;
	}
	ctf_id_t id = is_union ? ctf_add_union_sized(d, CTF_ADD_ROOT, name, size) :
				 ctf_add_struct_sized(d, CTF_ADD_ROOT, name, size);
	if (id == CTF_ERR) {
		ctf_failed(ctx, loc, cname);
		return false;
	}
	for (int i = 0; i < n; i++) {
		const struct dt_member_decl *m = &members[i];
		if (!m->name)
			continue;	/* a zero-width bit-field: layout only */
		long type = dt_ctf_id_of(ctx, m->type);
		if (type >= 0 && m->bits >= 0) {
			/*
			 * A slice of an integer of the program's own: libctf 2.40
			 * crashes reading the encoding of a slice of the kernel's.
			 */
			ctf_encoding_t unit = { .cte_format = m->type.is_signed ? CTF_INT_SIGNED : 0,
						.cte_bits = m->type.size * 8u };
			ctf_encoding_t enc = unit;
			enc.cte_bits = (unsigned)m->bits;
			type = (long)ctf_add_integer(d, CTF_ADD_NONROOT, dt_type_str(ctx, m->type),
						     &unit);
			if (type >= 0)
				type = (long)ctf_add_slice(d, CTF_ADD_NONROOT, (ctf_id_t)type, &enc);
		}
		if (type < 0 || ctf_add_member_offset(d, id, m->name, (ctf_id_t)type,
						      (unsigned long)offsets[i]) < 0) {
			ctf_failed(ctx, m->loc, m->name);
			return false;
		}
	}
	*out = dt_ctf_type(ctx, (uint32_t)id);
	return true;
}

/* ---- enum, typedef, arrays ---- */

bool dt_ctf_enum_define(struct dt_ctx *ctx, const char *name, const char *const *names,
			const int64_t *values, const struct dt_loc *locs, int n, struct dt_loc loc,
			struct dt_type *out)
{
	ctf_dict_t *d = dict(ctx);
	char cname[160];
	snprintf(cname, sizeof(cname), "enum %s", name ? name : "");
	if (name && ctf_lookup_by_name(d, cname) != CTF_ERR) {
		dt_error(ctx, loc, D_DECL_TYPERED, "type redeclared: %s", cname);
		return false;
	}
	ctf_id_t id = ctf_add_enum(d, CTF_ADD_ROOT, name);
	if (id == CTF_ERR) {
		ctf_failed(ctx, loc, cname);
		return false;
	}
	for (int i = 0; i < n; i++) {
		int64_t v;
		struct dt_type t;
		if (dt_ctf_enumerator(ctx, names[i], &v, &t) || dt_builtin_lookup(names[i])) {
			dt_error(ctx, locs[i], D_DECL_IDRED, "identifier redeclared: %s", names[i]);
			return false;
		}
		if (values[i] > INT_MAX || values[i] < INT_MIN) {
			dt_error(ctx, locs[i], D_DECL_ENOFLOW, "enumerator '%s' overflows INT_MAX (%d)",
				 names[i], INT_MAX);
			return false;
		}
		if (ctf_add_enumerator(d, id, names[i], (int)values[i]) < 0) {
			ctf_failed(ctx, locs[i], names[i]);
			return false;
		}
	}
	*out = dt_ctf_type(ctx, (uint32_t)id);
	return true;
}

bool dt_ctf_typedef_define(struct dt_ctx *ctx, const char *name, struct dt_type t,
			   struct dt_loc loc)
{
	if (dt_typedef_lookup(name, strlen(name)) || dt_ctf_typedef(ctx, name, strlen(name), NULL)) {
		dt_error(ctx, loc, D_DECL_IDRED, "identifier redeclared: %s", name);
		return false;
	}
	long id = dt_ctf_id_of(ctx, t);
	if (id < 0 || ctf_add_typedef(dict(ctx), CTF_ADD_ROOT, name, (ctf_id_t)id) == CTF_ERR) {
		if (id < 0)
			dt_error(ctx, loc, D_UNSUPPORTED, "typedef of %s is not supported",
				 dt_type_str(ctx, t));
		else
			ctf_failed(ctx, loc, name);
		return false;
	}
	return true;
}

bool dt_ctf_array_of(struct dt_ctx *ctx, struct dt_type elem, uint32_t count, struct dt_loc loc,
		     struct dt_type *out)
{
	long id = dt_ctf_id_of(ctx, elem);
	if (id < 0 || (elem.kind != DT_TYPE_INT && elem.kind != DT_TYPE_PTR &&
		       elem.kind != DT_TYPE_FLOAT &&
		       elem.kind != DT_TYPE_SOU && elem.kind != DT_TYPE_ARRAY)) {
		dt_error(ctx, loc, D_UNSUPPORTED, "arrays of %s are not supported",
			 dt_type_str(ctx, elem));
		return false;
	}
	if (elem.size && count > UINT32_MAX / 8 / elem.size) {
		dt_error(ctx, loc, D_DECL_ARRBIG, "array dimension too big");
		return false;
	}
	ctf_arinfo_t ai = { .ctr_contents = (ctf_id_t)id, .ctr_index = integer_id(ctx,
			    dt_type_c_int(8, false, false)), .ctr_nelems = count };
	ctf_id_t a = ctf_add_array(dict(ctx), CTF_ADD_NONROOT, &ai);
	if (a == CTF_ERR) {
		ctf_failed(ctx, loc, "an array type");
		return false;
	}
	*out = dt_ctf_type(ctx, (uint32_t)a);
	return true;
}
