// SPDX-License-Identifier: BSD-2-Clause
/*
 * C types: the kernel's, read from its CTF (kernel.ctf, which the build
 * takes from the objects gcc compiled with -gctf), and the ones a D
 * program declares (struct, union, enum, typedef), kept with libctf as
 * dtrace keeps them: the program's declarations go into a writable
 * dictionary whose parent is the kernel's shared dictionary, so a D
 * struct may hold a `struct thread *` and one lookup sees both.
 *
 * A type the rest of the compiler holds is a struct dt_type: integers,
 * enums and pointers to them keep the compiler's own representation;
 * structs, unions and arrays carry their CTF id (dt_type.ctf) in the
 * program's dictionary, and a pointer to one carries its base's id
 * (base_kind DT_TYPE_SOU). Types found only in one compilation unit's
 * dictionary of the kernel's archive (a static function's, a type two
 * files define differently) are copied into the program's dictionary
 * when they are first used, so every id the compiler holds is valid in
 * that one dictionary.
 *
 * D's own structs are laid out here, as gcc lays out C structs on the
 * kernel's ABI (x86_64 and sparc64 agree on every rule used): members
 * at their alignment, bit-fields packed into units of their declared
 * type without straddling one, the size rounded up to the alignment.
 *
 * Invariant: the dictionaries live as long as the program (dt_program
 * frees them); every string handed out is an arena copy.
 */
#include <ctf-api.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "dt_impl.h"

struct dt_ctf {
	void *kernel_bytes;		/* kernel.ctf, kept: the archive points into it */
	ctf_archive_t *archive;		/* the kernel's, or NULL */
	ctf_dict_t *kernel;		/* its shared dictionary, or NULL */
	ctf_dict_t *d;			/* the program's: D's declarations, parent kernel */
	bool big_endian;		/* the kernel's byte order (bit-field positions) */
	uint64_t id;			/* of the kernel's types (0: none), as the kernel has it */
};

static ctf_dict_t *dict(struct dt_ctx *ctx)
{
	return ctx->prog->ctf->d;
}

/*
 * The dictionary to ask about type id: the kernel's for its own types.
 * libctf 2.40 answers most questions about a parent's type through the
 * child, but ctf_type_encoding on a dynamic child crashes; asking the
 * owner is always right.
 */
struct ctf_dict *dt_ctf_owner(const struct dt_ctf *c, uint32_t id)
{
	return c->kernel && ctf_type_isparent(c->d, id) ? c->kernel : c->d;
}

static ctf_dict_t *owner(struct dt_ctx *ctx, ctf_id_t id)
{
	return dt_ctf_owner(ctx->prog->ctf, id);
}

/* ---- opening and closing ---- */

/* FNV-1a over the file, 64 bits, as tools/gen_ctf_id.py gives the kernel its kernel_ctf_id. */
static uint64_t types_id(const unsigned char *p, size_t len)
{
	uint64_t h = 0xcbf29ce484222325ull;
	for (size_t i = 0; i < len; i++)
		h = (h ^ p[i]) * 0x100000001b3ull;
	return h;
}

uint64_t dt_ctf_id(const struct dt_ctf *c)
{
	return c && c->kernel ? c->id : 0;
}

bool dt_ctf_open(struct dt_ctx *ctx)
{
	const struct dt_compile_args *args = ctx->args;
	struct dt_ctf *c = calloc(1, sizeof(*c));
	int err = 0;
	if (!c)
		longjmp(ctx->nomem, 1);
	ctx->prog->ctf = c;
	/* The CTF is in the build host's byte order, whatever the kernel's: the caller says. */
	c->big_endian = (args->flags & DT_COMPILE_BIG_ENDIAN) != 0;
	if (args->types && args->types_len) {
		c->kernel_bytes = malloc(args->types_len);
		if (!c->kernel_bytes)
			longjmp(ctx->nomem, 1);
		memcpy(c->kernel_bytes, args->types, args->types_len);
		c->id = types_id(c->kernel_bytes, args->types_len);
		ctf_sect_t sect = { .cts_name = ".ctf", .cts_data = c->kernel_bytes,
				    .cts_size = args->types_len, .cts_entsize = 1 };
		c->archive = ctf_arc_bufopen(&sect, NULL, NULL, &err);
		if (c->archive)
			c->kernel = ctf_dict_open(c->archive, ".ctf", &err);
		if (!c->kernel) {
			dt_error(ctx, ctx->end, D_UNKNOWN, "the kernel's types do not read: %s",
				 ctf_errmsg(err));
			return false;
		}
	}
	c->d = ctf_create(&err);
	if (!c->d || (c->kernel && ctf_import(c->d, c->kernel) < 0))
		longjmp(ctx->nomem, 1);
	return true;
}

void dt_ctf_free(struct dt_ctf *c)
{
	if (!c)
		return;
	ctf_dict_close(c->d);
	ctf_dict_close(c->kernel);
	if (c->archive)
		ctf_arc_close(c->archive);
	free(c->kernel_bytes);
	free(c);
}

bool dt_ctf_big_endian(const struct dt_ctf *c)
{
	return c && c->big_endian;
}

bool dt_ctf_has_kernel(const struct dt_ctx *ctx)
{
	return ctx->prog->ctf && ctx->prog->ctf->kernel;
}

/* ---- names ---- */

/*
 * The C name of type id. An array of arrays is named here, dimensions
 * outermost first (long [2][3]): libctf 2.40 names them the other way.
 */
const char *dt_ctf_name(const struct dt_ctf *c, uint32_t id, char *buf, size_t size)
{
	uint32_t dims[8];
	int n = 0;
	ctf_id_t t = id;
	ctf_arinfo_t ar;

	while (c && n < 8 && ctf_type_kind(dt_ctf_owner(c, (uint32_t)t), t) == CTF_K_ARRAY &&
	       ctf_array_info(dt_ctf_owner(c, (uint32_t)t), t, &ar) == 0) {
		dims[n++] = (uint32_t)ar.ctr_nelems;
		t = ar.ctr_contents;
	}
	if (!c || ctf_type_lname(dt_ctf_owner(c, (uint32_t)t), t, buf, size) < 0) {
		snprintf(buf, size, "?");
		return buf;
	}
	size_t len = strlen(buf);
	for (int i = 0; i < n && len < size; i++)
		len += (size_t)snprintf(buf + len, size - len, "%s[%u]", i ? "" : " ", dims[i]);
	return buf;
}

/* ---- from CTF to the compiler's types ---- */

static struct dt_type void_type(void)
{
	return dt_type_void;
}

/* An integer (or enum, or bool) of CTF type id, resolved; a void type if it is not one. */
static struct dt_type int_type(struct dt_ctx *ctx, ctf_id_t id, ctf_id_t named)
{
	ctf_dict_t *d = owner(ctx, id);
	ctf_encoding_t enc;
	ssize_t size = ctf_type_size(d, id);
	if (ctf_type_kind(d, id) == CTF_K_ENUM) {
		struct dt_type t = dt_type_c_int(4, true, false);
		t.ctf = (uint32_t)named;
		return t;
	}
	if (ctf_type_encoding(d, id, &enc) < 0 || (size != 1 && size != 2 && size != 4 && size != 8))
		return void_type();
	bool is_signed = (enc.cte_format & CTF_INT_SIGNED) != 0;
	char name[64];
	struct dt_type t = dt_type_c_int((unsigned)size, is_signed, false);
	if (ctf_type_lname(owner(ctx, named), named, name, sizeof(name)) > 0) {
		const struct dt_type *td = dt_typedef_lookup(name, strlen(name));
		if (td && td->size == t.size && td->is_signed == t.is_signed)
			t = *td;
		else if (strstr(name, "long long"))
			t.is_llong = size == 8;
	}
	return t;
}

struct dt_type dt_ctf_type(struct dt_ctx *ctx, uint32_t id)
{
	ctf_id_t r = ctf_type_resolve(owner(ctx, id), id);
	if (r == CTF_ERR || id == 0)
		return void_type();
	ctf_dict_t *d = owner(ctx, r);
	switch (ctf_type_kind(d, r)) {
	case CTF_K_INTEGER:
	case CTF_K_ENUM:
		return int_type(ctx, r, id);
	case CTF_K_STRUCT:
	case CTF_K_UNION:
	case CTF_K_FORWARD: {
		ssize_t size = ctf_type_kind(d, r) == CTF_K_FORWARD ? 0 : ctf_type_size(d, r);
		return (struct dt_type){ .kind = DT_TYPE_SOU, .size = size > 0 ? (uint32_t)size : 0,
					 .ctf = (uint32_t)r };
	}
	case CTF_K_ARRAY: {
		ssize_t size = ctf_type_size(d, r);
		return (struct dt_type){ .kind = DT_TYPE_ARRAY, .size = size > 0 ? (uint32_t)size : 0,
					 .ctf = (uint32_t)r };
	}
	case CTF_K_POINTER: {
		struct dt_type base = dt_ctf_type(ctx, (uint32_t)ctf_type_reference(d, r));
		if (base.kind == DT_TYPE_PTR && base.levels >= DT_MAX_PTR_LEVELS)
			return dt_type_pointer_to(dt_type_void);
		if (base.kind == DT_TYPE_ARRAY || base.kind == DT_TYPE_STRING)
			base = dt_type_void;	/* pointers to arrays and functions: addresses */
		return dt_type_pointer_to(base);
	}
	case CTF_K_FLOAT: {
		ssize_t size = ctf_type_size(d, r);
		if (size != 4 && size != 8)
			return void_type();	/* long double: D cannot print it */
		return (struct dt_type){ .kind = DT_TYPE_FLOAT, .size = (uint32_t)size,
					 .ctf = (uint32_t)r };
	}
	default:			/* functions, void */
		return void_type();
	}
}

/* A kernel type by C name ("struct thread", "uint64_t"); the D dictionary looks in both. */
bool dt_ctf_lookup(struct dt_ctx *ctx, const char *cname, struct dt_type *t)
{
	ctf_id_t id = ctf_lookup_by_name(dict(ctx), cname);
	if (id == CTF_ERR)
		return false;
	*t = dt_ctf_type(ctx, (uint32_t)id);
	return true;
}

bool dt_ctf_typedef(struct dt_ctx *ctx, const char *name, size_t len, struct dt_type *t)
{
	char buf[128];
	if (!ctx->prog->ctf || len == 0 || len >= sizeof(buf))
		return false;
	memcpy(buf, name, len);
	buf[len] = '\0';
	ctf_id_t id = ctf_lookup_by_name(dict(ctx), buf);
	if (id == CTF_ERR || ctf_type_kind(owner(ctx, id), id) != CTF_K_TYPEDEF)
		return false;
	if (t)
		*t = dt_ctf_type(ctx, (uint32_t)id);
	return true;
}

/* ---- members, elements ---- */

int dt_ctf_member(struct dt_ctx *ctx, struct dt_type sou, const char *name,
		  struct dt_ctf_member *m)
{
	ctf_membinfo_t mi;
	if (ctf_member_info(owner(ctx, sou.ctf), sou.ctf, name, &mi) < 0)
		return -1;
	memset(m, 0, sizeof(*m));
	m->type = dt_ctf_type(ctx, (uint32_t)mi.ctm_type);
	unsigned long bit = mi.ctm_offset;
	ctf_dict_t *d = owner(ctx, mi.ctm_type);
	ctf_id_t r = ctf_type_resolve(d, mi.ctm_type);
	ctf_encoding_t enc;
	if (ctf_type_kind(owner(ctx, r), r) == CTF_K_INTEGER &&
	    ctf_type_encoding(d, mi.ctm_type, &enc) == 0 &&
	    (enc.cte_bits != m->type.size * 8u || enc.cte_offset != 0 || bit % 8)) {
		/* A bit-field (a slice): find the unit of its declared type that holds it. */
		ctf_id_t declared = ctf_type_reference(d, mi.ctm_type);
		if (declared != CTF_ERR)
			m->type = dt_ctf_type(ctx, (uint32_t)declared);
		if (m->type.kind != DT_TYPE_INT)
			return -2;
		bit += enc.cte_offset;
		unsigned unit = m->type.size * 8u;
		unsigned long start = bit / unit * unit;
		if (enc.cte_bits == 0 || bit + enc.cte_bits > start + unit)
			return -2;	/* straddles its unit (a packed struct) */
		m->bits = (uint8_t)enc.cte_bits;
		m->shift = (uint8_t)(ctx->prog->ctf->big_endian ?
				     unit - (bit - start) - enc.cte_bits : bit - start);
		m->offset = start / 8;
		return 0;
	}
	m->offset = bit / 8;
	return 0;
}

struct dt_type dt_ctf_element(struct dt_ctx *ctx, struct dt_type array, uint32_t *count)
{
	ctf_arinfo_t ai;
	if (ctf_array_info(owner(ctx, array.ctf), array.ctf, &ai) < 0) {
		*count = 0;
		return dt_type_void;
	}
	*count = ai.ctr_nelems;
	return dt_ctf_type(ctx, (uint32_t)ai.ctr_contents);
}

bool dt_ctf_is_char_array(struct dt_ctx *ctx, struct dt_type t)
{
	uint32_t n;
	if (t.kind != DT_TYPE_ARRAY)
		return false;
	struct dt_type e = dt_ctf_element(ctx, t, &n);
	return e.kind == DT_TYPE_INT && e.size == 1;
}

/* ---- the kernel's functions and objects ---- */

/* name's type in cu's function (1) or object (0) index, or CTF_ERR. */
static ctf_id_t find_symbol(ctf_dict_t *cu, const char *name, int functions)
{
	ctf_next_t *it = NULL;
	const char *sym;
	ctf_id_t t;
	while ((t = ctf_symbol_next(cu, &it, &sym, functions)) != CTF_ERR)
		if (!strcmp(sym, name)) {
			ctf_next_destroy(it);
			return t;
		}
	return CTF_ERR;
}

/*
 * A kernel symbol's type: from the shared dictionary, else from the one
 * compilation unit's that has it (a static function), copied into the
 * program's dictionary.
 */
static ctf_id_t symbol_type(struct dt_ctx *ctx, const char *name, int functions)
{
	struct dt_ctf *c = ctx->prog->ctf;
	if (!c->kernel)
		return CTF_ERR;
	ctf_id_t t = find_symbol(c->kernel, name, functions);
	if (t != CTF_ERR)
		return t;
	ctf_next_t *ai = NULL;
	ctf_dict_t *cu;
	int err;
	while ((cu = ctf_archive_next(c->archive, &ai, NULL, 1, &err))) {
		t = find_symbol(cu, name, functions);
		if (t != CTF_ERR)
			t = ctf_add_type(c->d, cu, t);
		ctf_dict_close(cu);
		if (t != CTF_ERR) {
			ctf_next_destroy(ai);
			return t;
		}
	}
	return CTF_ERR;
}

int dt_ctf_function(struct dt_ctx *ctx, const char *name, struct dt_type *ret,
		    struct dt_type *args, int max)
{
	ctf_id_t f = symbol_type(ctx, name, 1);
	ctf_funcinfo_t fi;
	ctf_id_t argv[32];
	if (f == CTF_ERR || ctf_func_type_info(owner(ctx, f), f, &fi) < 0 ||
	    ctf_func_type_args(owner(ctx, f), f, 32, argv) < 0)
		return -1;
	*ret = dt_ctf_type(ctx, (uint32_t)fi.ctc_return);
	int n = (int)fi.ctc_argc;
	for (int i = 0; i < n && i < max && i < 32; i++)
		args[i] = dt_ctf_type(ctx, (uint32_t)argv[i]);
	return n;
}

bool dt_ctf_object(struct dt_ctx *ctx, const char *name, struct dt_type *t)
{
	ctf_id_t id = symbol_type(ctx, name, 0);
	if (id == CTF_ERR)
		return false;
	*t = dt_ctf_type(ctx, (uint32_t)id);
	return true;
}

/* ---- enumerators ---- */

bool dt_ctf_enumerator(struct dt_ctx *ctx, const char *name, int64_t *value, struct dt_type *t)
{
	ctf_dict_t *dicts[2] = { dict(ctx), ctx->prog->ctf->kernel };
	for (int i = 0; i < 2 && dicts[i]; i++) {
		ctf_next_t *it = NULL;
		ctf_id_t id;
		while ((id = ctf_type_next(dicts[i], &it, NULL, 0)) != CTF_ERR) {
			int v;
			if (ctf_type_kind(dicts[i], id) != CTF_K_ENUM ||
			    ctf_enum_value(dicts[i], id, name, &v) < 0)
				continue;
			ctf_next_destroy(it);
			*value = v;
			*t = dt_type_c_int(4, true, false);
			t->ctf = (uint32_t)id;
			return true;
		}
	}
	return false;
}

struct ctf_dict *dt_ctf_dict(const struct dt_ctf *c)
{
	return c->d;
}
