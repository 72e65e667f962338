// SPDX-License-Identifier: BSD-2-Clause
/*
 * The generated object as one JSON document, for the host consumer
 * (host/scionhost/): what `dtc` prints.
 *
 *   { "object_hex": "<the object's bytes as hex>",
 *     "strsize": n,
 *     "options": { "<every option of dt_options_table>": value },
 *       (nspec, specsize, dynvarsize, aggsize: as the kernel applies them)
 *     "aggs": [ { "id", "name" ("" for @), "func", "keys": [D...],
 *                 "lquantize": [low, high, step] or null,
 *                 "llquantize": [factor, low, high, nsteps, buckets] or null } ],
 *     "clauses": [ { "index", "probes": ["text as written"...], "record",
 *                    "default_action", "size", "actions": [A...] } ] }
 *
 *   option values: numbers in the table's units (bytes, nanoseconds,
 *     counts; flags 0 or 1), except bufpolicy and bufresize: their names
 *   A: {"kind":"trace","data":D} {"kind":"printf","format":"...","args":[D...]}
 *      {"kind":"printa","format":"..." or null,"aggs":[ids]} {"kind":"stack","data":D}
 *      {"kind":"exit","data":D} {"kind":"clear","agg":id}
 *      {"kind":"trunc","agg":id,"data":D or null} {"kind":"normalize","agg":id,"data":D}
 *      {"kind":"denormalize","agg":id}
 *      {"kind":"tracemem","data":D (bytes),"dynsize":D or null}
 *      {"kind":"print","data":D,"big_endian":bool,"ctype":T (dt_print_type.c)}
 *   D: {"offset" (records only: from the record's start), "type": "int", "float"
 *      (its bits, "width" 4 or 8), "string" or "stack", "size", "signed", "width" (1, 2, 4, 8; 0 for a string), "sym": "none",
 *      "func" or "sym", "frames" (0 unless a stack)}
 *
 * Strings are the D text's bytes: printable ASCII as is, everything else
 * as \u00XX (so a byte maps to one code point; latin-1 gives them back).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "dt_impl.h"

struct json {
	char *p;
	size_t len, cap;
	bool nomem;
};

static void put(struct json *j, const char *s, size_t n)
{
	if (j->nomem)
		return;
	if (j->len + n + 1 > j->cap) {
		size_t cap = j->cap ? j->cap : 4096;
		while (j->len + n + 1 > cap)
			cap *= 2;
		char *p = realloc(j->p, cap);
		if (!p) {
			j->nomem = true;
			return;
		}
		j->p = p;
		j->cap = cap;
	}
	memcpy(j->p + j->len, s, n);
	j->len += n;
	j->p[j->len] = '\0';
}

static void puts_(struct json *j, const char *s)
{
	put(j, s, strlen(s));
}

/* A short formatted piece (the writer for dt_print_type.c too). */
void dt_json_printf(struct json *j, const char *fmt, ...)
{
	char buf[256];		/* longer than any line this file prints with it */
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	put(j, buf, n < 0 ? 0 : (size_t)n < sizeof(buf) ? (size_t)n : sizeof(buf) - 1);
}

static void string(struct json *j, const char *s, size_t n)
{
	puts_(j, "\"");
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c == '"' || c == '\\') {
			char esc[2] = { '\\', (char)c };
			put(j, esc, 2);
		} else if (c == '\n') {
			puts_(j, "\\n");
		} else if (c == '\t') {
			puts_(j, "\\t");
		} else if (c < 0x20 || c >= 0x7f) {
			dt_json_printf(j, "\\u%04x", c);
		} else {
			put(j, (const char *)&c, 1);
		}
	}
	puts_(j, "\"");
}

/* The writer for the other writers of the document (dt_print_type.c). */
void dt_json_puts(struct json *j, const char *s)
{
	puts_(j, s);
}

void dt_json_string(struct json *j, const char *s, size_t n)
{
	string(j, s, n);
}

void dt_json_fail(struct json *j)
{
	j->nomem = true;
}

static const char *const datum_kinds[] = {
	[DT_DATUM_INT] = "int", [DT_DATUM_STRING] = "string", [DT_DATUM_STACK] = "stack",
	[DT_DATUM_BYTES] = "bytes",
};
static const char *const sym_styles[] = {
	[DT_SYM_NONE] = "none", [DT_SYM_FUNC] = "func", [DT_SYM_SYM] = "sym",
};

static void datum(struct json *j, const struct dt_datum *d, bool with_offset)
{
	bool integer = d->kind == DT_DATUM_INT;
	puts_(j, "{");
	if (with_offset)
		dt_json_printf(j, "\"offset\":%u,", d->offset);
	dt_json_printf(j, "\"type\":\"%s\",\"size\":%u,\"signed\":%s,\"width\":%u,\"sym\":\"%s\","
		"\"frames\":%u}", integer && d->type.kind == DT_TYPE_FLOAT ? "float" :
		datum_kinds[d->kind], d->size,
		integer && d->type.is_signed ? "true" : "false",
		d->kind == DT_DATUM_STRING || d->kind == DT_DATUM_BYTES ? 0u :
		d->kind == DT_DATUM_STACK ? 8u : d->type.size,
		sym_styles[integer ? d->type.sym : DT_SYM_NONE], d->frames);
}

static void data_or_null(struct json *j, const struct dt_action *a)
{
	if (a->ndata)
		datum(j, &a->data[0], true);
	else
		puts_(j, "null");
}

static void format_or_null(struct json *j, const struct dt_format *f)
{
	if (f)
		string(j, f->text, f->len);
	else
		puts_(j, "null");
}

static void action(struct json *j, const struct dt_object *obj, const struct dt_action *a)
{
	static const char *const kinds[] = {
		[DT_ACTION_TRACE] = "trace", [DT_ACTION_PRINTF] = "printf",
		[DT_ACTION_PRINTA] = "printa", [DT_ACTION_STACK] = "stack",
		[DT_ACTION_EXIT] = "exit", [DT_ACTION_CLEAR] = "clear",
		[DT_ACTION_TRUNC] = "trunc", [DT_ACTION_NORMALIZE] = "normalize",
		[DT_ACTION_DENORMALIZE] = "denormalize", [DT_ACTION_TRACEMEM] = "tracemem",
		[DT_ACTION_PRINT] = "print",
	};
	dt_json_printf(j, "{\"kind\":\"%s\"", kinds[a->kind]);
	switch (a->kind) {
	case DT_ACTION_TRACE:
	case DT_ACTION_STACK:
	case DT_ACTION_EXIT:
		puts_(j, ",\"data\":");
		data_or_null(j, a);
		break;
	case DT_ACTION_PRINTF:
		puts_(j, ",\"format\":");
		format_or_null(j, a->format);
		puts_(j, ",\"args\":[");
		for (int i = 0; i < a->ndata; i++) {
			puts_(j, i ? "," : "");
			datum(j, &a->data[i], true);
		}
		puts_(j, "]");
		break;
	case DT_ACTION_PRINTA:
		puts_(j, ",\"format\":");
		format_or_null(j, a->format);
		puts_(j, ",\"aggs\":[");
		for (int i = 0; i < a->naggs; i++)
			dt_json_printf(j, "%s%d", i ? "," : "", a->aggs[i]);
		puts_(j, "]");
		break;
	case DT_ACTION_CLEAR:
	case DT_ACTION_DENORMALIZE:
		dt_json_printf(j, ",\"agg\":%d", a->aggs[0]);
		break;
	case DT_ACTION_TRUNC:
	case DT_ACTION_NORMALIZE:
		dt_json_printf(j, ",\"agg\":%d,\"data\":", a->aggs[0]);
		data_or_null(j, a);
		break;
	case DT_ACTION_PRINT:	/* the value, and its C type for the consumer to lay it out */
		puts_(j, ",\"data\":");
		datum(j, &a->data[0], true);
		dt_json_printf(j, ",\"big_endian\":%s,\"ctype\":", dt_ctf_big_endian(obj->program->ctf) ?
			"true" : "false");
		dt_print_type_json(j, obj->program, a->stmt->args->type);
		break;
	case DT_ACTION_TRACEMEM:
		puts_(j, ",\"data\":");
		datum(j, &a->data[0], true);
		puts_(j, ",\"dynsize\":");
		if (a->ndata > 1)
			datum(j, &a->data[1], true);
		else
			puts_(j, "null");
		break;
	}
	puts_(j, "}");
}

/* The sizes the object carries are shown as the kernel applies them. */
static void options(struct json *j, const struct dt_object *obj)
{
	puts_(j, "\"options\":{");
	for (int i = 0; i < DT_OPTION_COUNT; i++) {
		const struct dt_option_desc *d = &dt_options_table[i];
		enum dof_option carried = dt_option_in_object(d->id);
		uint64_t v = carried ? obj->option[carried]
				     : dt_option_get(&obj->program->options, d->id);
		dt_json_printf(j, "%s\"%s\":", i ? "," : "", d->name);
		if (d->kind == DT_OK_CHOICE)
			dt_json_printf(j, "\"%s\"", d->choices[v]);
		else
			dt_json_printf(j, "%llu", (unsigned long long)v);
	}
	puts_(j, "}");
}

static void aggs(struct json *j, const struct dt_object *obj)
{
	puts_(j, "\"aggs\":[");
	for (int i = 0; i < obj->naggs; i++) {
		const struct dt_agg_code *ac = &obj->aggs[i];
		const struct dt_agg *a = ac->agg;
		dt_json_printf(j, "%s{\"id\":%d,\"name\":", i ? "," : "", a->id);
		string(j, a->name, strlen(a->name));
		dt_json_printf(j, ",\"func\":\"%s\",\"keys\":[", a->func->name);
		for (int k = 0; k < ac->nkeys; k++) {
			puts_(j, k ? "," : "");
			datum(j, &ac->keys[k], false);
		}
		puts_(j, "],\"lquantize\":");
		if (ac->func == DOF_AGG_LQUANTIZE)
			dt_json_printf(j, "[%lld,%lld,%lld]", (long long)a->lq_low, (long long)a->lq_high,
				(long long)a->lq_step);
		else
			puts_(j, "null");
		puts_(j, ",\"llquantize\":");
		if (ac->func == DOF_AGG_LLQUANTIZE) {
			uint16_t f = DOF_LLQ_FACTOR(a->lq_step), n = DOF_LLQ_NSTEPS(a->lq_step);
			dt_json_printf(j, "[%u,%lld,%lld,%u,%u]", f, (long long)a->lq_low,
				(long long)a->lq_high, n,
				dof_llquantize_buckets(f, (uint16_t)a->lq_low, (uint16_t)a->lq_high, n));
		} else {
			puts_(j, "null");
		}
		puts_(j, "}");
	}
	puts_(j, "]");
}

static void clauses(struct json *j, const struct dt_object *obj)
{
	puts_(j, "\"clauses\":[");
	for (int i = 0; i < obj->nclauses; i++) {
		const struct dt_clause_code *cc = &obj->clauses[i];
		dt_json_printf(j, "%s{\"index\":%d,\"probes\":[", i ? "," : "", cc->clause->index);
		for (const struct dt_probedesc *d = cc->clause->probes; d; d = d->next) {
			puts_(j, d == cc->clause->probes ? "" : ",");
			string(j, d->text, strlen(d->text));
		}
		dt_json_printf(j, "],\"record\":%s,\"default_action\":%s,\"size\":%u,\"actions\":[",
			cc->flags & DOF_CLAUSE_RECORD ? "true" : "false",
			cc->default_action ? "true" : "false", cc->size);
		for (int k = 0; k < cc->nactions; k++) {
			puts_(j, k ? "," : "");
			action(j, obj, &cc->actions[k]);
		}
		puts_(j, "]}");
	}
	puts_(j, "]");
}

char *dt_object_json(const struct dt_object *obj)
{
	static const char hex[] = "0123456789abcdef";
	struct json j = { 0 };

	puts_(&j, "{\"object_hex\":\"");
	for (size_t i = 0; i < obj->size; i++) {
		char pair[2] = { hex[obj->bytes[i] >> 4], hex[obj->bytes[i] & 0xf] };
		put(&j, pair, 2);
	}
	dt_json_printf(&j, "\",\n\"strsize\":%u,\n", obj->strsize);
	options(&j, obj);
	puts_(&j, ",\n");
	aggs(&j, obj);
	puts_(&j, ",\n");
	clauses(&j, obj);
	puts_(&j, "}\n");
	if (j.nomem) {
		free(j.p);
		return NULL;
	}
	return j.p;
}
