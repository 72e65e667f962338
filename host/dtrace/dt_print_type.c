// SPDX-License-Identifier: BSD-2-Clause
/*
 * print()'s description of its value's C type, for the consumer that
 * formats the recorded bytes as dtrace's print() does
 * (host/scionhost/dprint.py), written into the program's JSON:
 *
 *   T: {"kind": "int", "name", "size", "signed", "char", "bool"}
 *      {"kind": "float", "name", "size"}
 *      {"kind": "pointer", "name", "func"}          (func: to a function)
 *      {"kind": "string", "name"}
 *      {"kind": "enum", "name", "size", "values": [[name, value]...]}
 *      {"kind": "array", "name", "size", "count", "elem": T}
 *      {"kind": "struct" or "union", "name", "size", "members": [M...]}
 *      {"kind": "unknown", "name", "size"}
 *   M: {"name", "offset" (bytes), "type": T}, and for a bit-field
 *      "bits" and "shift": the value is (the unit of the member type's
 *      size at offset, read in the kernel's byte order) >> shift, bits
 *      wide.
 *
 * Struct members and array elements are described whole (a pointer is
 * not followed), so the description is finite; past DESCRIBE_DEPTH
 * nested levels a member is "unknown", printed by its bytes.
 */
#include <ctf-api.h>
#include <setjmp.h>
#include <string.h>
#include "dt_impl.h"

#define DESCRIBE_DEPTH 12

static void describe(struct json *j, struct dt_ctx *ctx, struct dt_type t, uint32_t id,
		     int depth);

/* {"kind": kind, "name": the C name of id when known (a typedef's name kept), else t's. */
static void name_field(struct json *j, struct dt_ctx *ctx, const char *kind, struct dt_type t,
		       uint32_t id)
{
	char buf[192];
	const char *name = id ? dt_ctf_name(ctx->prog->ctf, id, buf, sizeof(buf)) :
			   dt_type_str(ctx, t);
	dt_json_printf(j, "{\"kind\":\"%s\",\"name\":", kind);
	dt_json_string(j, name, strlen(name));
}

/* The CTF kind of t's id once typedefs are resolved, or CTF_K_UNKNOWN. */
static int ctf_kind(struct dt_ctx *ctx, struct dt_type t, ctf_dict_t **d, ctf_id_t *resolved)
{
	if (!t.ctf)
		return CTF_K_UNKNOWN;
	*d = dt_ctf_owner(ctx->prog->ctf, t.ctf);
	*resolved = ctf_type_resolve(*d, t.ctf);
	if (*resolved == CTF_ERR)
		return CTF_K_UNKNOWN;
	*d = dt_ctf_owner(ctx->prog->ctf, (uint32_t)*resolved);
	return ctf_type_kind(*d, *resolved);
}

/*
 * An integer or enum: id is its C type as declared (a member's), 0 when
 * only the compiler's view t is known (a D expression's value), which
 * cannot tell a char or a bool from another byte.
 */
static void describe_int(struct json *j, struct dt_ctx *ctx, struct dt_type t, uint32_t id)
{
	ctf_dict_t *d;
	ctf_id_t r;
	if (ctf_kind(ctx, t, &d, &r) == CTF_K_ENUM) {
		name_field(j, ctx, "enum", t, id);
		dt_json_printf(j, ",\"size\":%u,\"values\":[", t.size);
		ctf_next_t *it = NULL;
		const char *name;
		int value, n = 0;
		while ((name = ctf_enum_next(d, r, &it, &value)) != NULL) {
			dt_json_puts(j, n++ ? ",[" : "[");
			dt_json_string(j, name, strlen(name));
			dt_json_printf(j, ",%d]", value);
		}
		dt_json_puts(j, "]}");
		return;
	}
	ctf_encoding_t enc = { 0 };
	struct dt_type declared = { .ctf = id };
	bool encoded = id && ctf_kind(ctx, declared, &d, &r) == CTF_K_INTEGER &&
		       ctf_type_encoding(d, r, &enc) == 0;
	/* A char is a signed byte (illumos's rule: uint8_t is a number). */
	bool is_char = t.size == 1 && t.is_signed && encoded && (enc.cte_format & CTF_INT_CHAR);
	name_field(j, ctx, "int", t, id);
	dt_json_printf(j, ",\"size\":%u,\"signed\":%s,\"char\":%s,\"bool\":%s}", t.size,
		       t.is_signed ? "true" : "false", is_char ? "true" : "false",
		       encoded && (enc.cte_format & CTF_INT_BOOL) ? "true" : "false");
}

static void describe_members(struct json *j, struct dt_ctx *ctx, struct dt_type t, int depth)
{
	ctf_dict_t *d;
	ctf_id_t r;
	ctf_kind(ctx, t, &d, &r);
	ctf_next_t *it = NULL;
	const char *name;
	ctf_id_t type;
	int n = 0;
	while (ctf_member_next(d, r, &it, &name, &type, 0) >= 0) {
		struct dt_ctf_member m;
		if (!name || !*name || dt_ctf_member(ctx, t, name, &m) < 0)
			continue;	/* an anonymous member, or a bit-field across units */
		dt_json_puts(j, n++ ? ",{\"name\":" : "{\"name\":");
		dt_json_string(j, name, strlen(name));
		dt_json_printf(j, ",\"offset\":%llu", (unsigned long long)m.offset);
		if (m.bits)
			dt_json_printf(j, ",\"bits\":%u,\"shift\":%u", m.bits, m.shift);
		dt_json_puts(j, ",\"type\":");
		describe(j, ctx, m.type, (uint32_t)type, depth + 1);
		dt_json_puts(j, "}");
	}
}

static void describe(struct json *j, struct dt_ctx *ctx, struct dt_type t, uint32_t id,
		     int depth)
{
	if (depth > DESCRIBE_DEPTH && (t.kind == DT_TYPE_SOU || t.kind == DT_TYPE_ARRAY)) {
		name_field(j, ctx, "unknown", t, id);
		dt_json_printf(j, ",\"size\":%u}", t.size);
		return;
	}
	switch (t.kind) {
	case DT_TYPE_INT:
		describe_int(j, ctx, t, id);
		return;
	case DT_TYPE_FLOAT:
		name_field(j, ctx, "float", t, id);
		dt_json_printf(j, ",\"size\":%u}", t.size);
		return;
	case DT_TYPE_STRING:
		name_field(j, ctx, "string", t, 0);
		dt_json_puts(j, "}");
		return;
	case DT_TYPE_PTR:
	case DT_TYPE_THREAD: {
		ctf_dict_t *d;
		ctf_id_t r;
		struct dt_type declared = { .ctf = id };
		bool func = id && ctf_kind(ctx, declared, &d, &r) == CTF_K_POINTER &&
			    ctf_type_kind(d, ctf_type_resolve(d, ctf_type_reference(d, r))) ==
			    CTF_K_FUNCTION;
		name_field(j, ctx, "pointer", t, id);
		dt_json_printf(j, ",\"func\":%s}", func ? "true" : "false");
		return;
	}
	case DT_TYPE_ARRAY: {
		uint32_t count;
		struct dt_type elem = dt_ctf_element(ctx, t, &count);
		ctf_arinfo_t ai;
		ctf_dict_t *d = dt_ctf_owner(ctx->prog->ctf, t.ctf);
		uint32_t elem_id = ctf_array_info(d, t.ctf, &ai) == 0 ? (uint32_t)ai.ctr_contents : 0;
		name_field(j, ctx, "array", t, id);
		dt_json_printf(j, ",\"size\":%u,\"count\":%u,\"elem\":", t.size, count);
		describe(j, ctx, elem, elem_id, depth + 1);
		dt_json_puts(j, "}");
		return;
	}
	case DT_TYPE_SOU: {
		ctf_dict_t *d;
		ctf_id_t r;
		bool is_union = ctf_kind(ctx, t, &d, &r) == CTF_K_UNION;
		name_field(j, ctx, is_union ? "union" : "struct", t, id);
		dt_json_printf(j, ",\"size\":%u,\"members\":[", t.size);
		describe_members(j, ctx, t, depth);
		dt_json_puts(j, "]}");
		return;
	}
	default:
		name_field(j, ctx, "unknown", t, id);
		dt_json_printf(j, ",\"size\":%u}", t.size);
		return;
	}
}

void dt_print_type_json(struct json *j, const struct dt_program *program, struct dt_type t)
{
	struct dt_ctx ctx = { .prog = (struct dt_program *)program,
			      .filename = program->filename };
	if (setjmp(ctx.nomem)) {
		dt_json_fail(j);	/* the whole document is then out of memory */
		return;
	}
	describe(j, &ctx, t, t.kind == DT_TYPE_SOU || t.kind == DT_TYPE_ARRAY ? t.ctf : 0, 0);
}
