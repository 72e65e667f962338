// SPDX-License-Identifier: BSD-2-Clause
/*
 * The compiler's driver and its memory: dt_compile runs the phases
 * (preprocessor, lexer and parser, checker) over one source, collects
 * errors, and owns every allocation in one arena freed at once by
 * dt_program_free. Also the error tag names and the two error formats.
 *
 * Invariants: the program struct itself is malloc'd (so errors can be
 * recorded even when the arena cannot grow); everything else comes from
 * the arena; running out of memory anywhere longjmps back here and ends
 * the compilation with one D_NOMEM error.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "dt_impl.h"

#define CHUNK_SIZE (64 * 1024)

struct dt_chunk {
	struct dt_chunk *next;
	size_t size, used;
	max_align_t data[];
};

struct dt_arena {
	struct dt_chunk *chunks;
};

void *dt_alloc(struct dt_ctx *ctx, size_t size)
{
	struct dt_arena *arena = ctx->prog->arena;
	size_t align = sizeof(max_align_t);

	size = (size + align - 1) / align * align;
	if (size == 0)
		size = align;
	struct dt_chunk *c = arena->chunks;
	if (!c || c->size - c->used < size) {
		size_t want = size > CHUNK_SIZE ? size : CHUNK_SIZE;
		c = malloc(sizeof(*c) + want);
		if (!c)
			longjmp(ctx->nomem, 1);
		c->size = want;
		c->used = 0;
		c->next = arena->chunks;
		arena->chunks = c;
	}
	void *p = (char *)c->data + c->used;
	c->used += size;
	memset(p, 0, size);
	return p;
}

char *dt_strndup(struct dt_ctx *ctx, const char *s, size_t len)
{
	char *p = dt_alloc(ctx, len + 1);
	memcpy(p, s, len);
	p[len] = '\0';
	return p;
}

static char *vformat(struct dt_ctx *ctx, const char *fmt, va_list ap)
{
	char small[256];
	va_list ap2;

	if (!fmt)		/* never; tells the compiler's format checks so */
		fmt = "";

	va_copy(ap2, ap);
	int n = vsnprintf(small, sizeof(small), fmt, ap2);
	va_end(ap2);
	if (n < 0)
		n = 0;
	char *p = dt_alloc(ctx, (size_t)n + 1);
	if ((size_t)n < sizeof(small))
		memcpy(p, small, (size_t)n + 1);
	else
		vsnprintf(p, (size_t)n + 1, fmt, ap);
	return p;
}

void dt_error(struct dt_ctx *ctx, struct dt_loc loc, enum dt_errtag tag, const char *fmt, ...)
{
	struct dt_program *prog = ctx->prog;

	if (ctx->stopped)
		return;
	if (prog->nerrors == DT_MAX_ERRORS) {
		prog->errors[prog->nerrors++] = (struct dt_error){
			D_TOO_MANY, loc, "too many errors; stopping here" };
		ctx->stopped = true;
		return;
	}
	va_list ap;
	va_start(ap, fmt);
	char *msg = vformat(ctx, fmt, ap);
	va_end(ap);
	prog->errors[prog->nerrors++] = (struct dt_error){ tag, loc, msg };
}

bool dt_defaultargs(const struct dt_ctx *ctx)
{
	return dt_option_get(&ctx->prog->options, DT_OPT_DEFAULTARGS) != 0;
}

/* Printable, quoted form of bytes for messages: at most max source bytes. */
char *dt_quote(struct dt_ctx *ctx, const char *s, size_t len, size_t max)
{
	bool cut = len > max;
	if (cut)
		len = max;
	char *out = dt_alloc(ctx, len * 4 + 8);
	char *o = out;
	*o++ = '"';
	for (size_t i = 0; i < len; i++) {
		unsigned char ch = (unsigned char)s[i];
		if (ch == '"' || ch == '\\') {
			*o++ = '\\';
			*o++ = (char)ch;
		} else if (ch == '\n') {
			*o++ = '\\';
			*o++ = 'n';
		} else if (ch == '\t') {
			*o++ = '\\';
			*o++ = 't';
		} else if (ch < 0x20 || ch >= 0x7f) {
			o += sprintf(o, "\\x%02x", ch);
		} else {
			*o++ = (char)ch;
		}
	}
	if (cut) {
		memcpy(o, "...", 3);
		o += 3;
	}
	*o++ = '"';
	*o = '\0';
	return out;
}

static void free_arena(struct dt_arena *arena)
{
	if (!arena)
		return;
	for (struct dt_chunk *c = arena->chunks, *next; c; c = next) {
		next = c->next;
		free(c);
	}
	free(arena);
}

void dt_program_free(struct dt_program *program)
{
	if (!program)
		return;
	free_arena(program->arena);
	dt_ctf_free(program->ctf);
	free(program);
}

/* Everything that may run out of memory; its arguments wait in ctx. */
static void run_phases(struct dt_ctx *ctx)
{
	const struct dt_compile_args *args = ctx->args;
	const char *source = ctx->source;
	size_t length = ctx->source_len;

	ctx->filename = dt_strndup(ctx, ctx->filename, strlen(ctx->filename));
	ctx->prog->filename = ctx->filename;
	ctx->argc = args->argc > 0 && args->argv ? args->argc : 0;
	ctx->argv = args->argv;
	ctx->arg_used = dt_alloc(ctx, sizeof(bool) * ((size_t)ctx->argc + 1));
	ctx->probespec = (args->flags & DT_COMPILE_PROBESPEC) != 0;
	if (!source) {
		source = "";
		length = 0;
	}
	if (args->flags & DT_COMPILE_CPP) {
		source = dt_preprocess(ctx, args->cpp ? args->cpp : "cpp", source, length, &length);
		if (!source)
			return;
	}
	if (!dt_ctf_open(ctx))
		return;
	dt_parse_program(ctx, source, length);
	if (ctx->nsyntax == 0 && !ctx->stopped)
		dt_check_program(ctx);
}

/* false: memory ran out (dt_alloc longjmp'd here). */
static bool run_guarded(struct dt_ctx *ctx)
{
	if (setjmp(ctx->nomem))
		return false;
	run_phases(ctx);
	return true;
}

struct dt_program *dt_compile_with(const char *source, size_t length,
				   const struct dt_compile_args *args)
{
	static const struct dt_compile_args no_args;
	struct dt_program *prog = calloc(1, sizeof(*prog));

	if (!args)
		args = &no_args;
	if (!prog)
		return NULL;
	dt_options_init(&prog->options);
	if (args->options)
		prog->options = *args->options;
	struct dt_loc nowhere = { args->filename ? args->filename : "<input>", 0, 0 };
	prog->arena = calloc(1, sizeof(*prog->arena));
	struct dt_ctx ctx = { .prog = prog, .args = args, .filename = nowhere.file,
			      .source = source, .source_len = length };
	if (!prog->arena || !run_guarded(&ctx)) {
		/* Messages may point into the arena: keep them, drop the AST. */
		prog->clauses = NULL;
		prog->nclauses = 0;
		prog->vars = NULL;
		prog->aggs = NULL;
		if (prog->nerrors <= DT_MAX_ERRORS)
			prog->errors[prog->nerrors++] = (struct dt_error){ D_NOMEM, nowhere,
									    "out of memory" };
	}
	return prog;
}

struct dt_program *dt_compile(const char *source, size_t length, const char *filename,
			      int argc, const char *const *argv, unsigned flags)
{
	struct dt_compile_args args = {
		.filename = filename, .argc = argc, .argv = argv, .flags = flags,
	};
	return dt_compile_with(source, length, &args);
}

static const char *const errtag_names[DT_ERRTAG_COUNT] = {
#define DT_X(t) [t] = #t,
	DT_ERRTAGS_ILLUMOS(DT_X)
	DT_ERRTAGS_SCION(DT_X)
#undef DT_X
};

const char *dt_errtag_name(enum dt_errtag tag)
{
	if ((unsigned)tag >= DT_ERRTAG_COUNT || !errtag_names[tag])
		return "D_UNKNOWN";
	return errtag_names[tag];
}

int dt_error_format(const struct dt_error *e, enum dt_error_style style, char *buf, size_t size)
{
	const char *file = e->loc.file ? e->loc.file : "<input>";

	if (style == DT_ERRFMT_TAGGED)
		return snprintf(buf, size, "%s:%d:%d: %s: %s", file, e->loc.line, e->loc.column,
				dt_errtag_name(e->tag), e->message);
	if (e->loc.line <= 0)
		return snprintf(buf, size, "dtrace: failed to compile script %s: %s", file,
				e->message);
	return snprintf(buf, size, "dtrace: failed to compile script %s: line %d: %s", file,
			e->loc.line, e->message);
}
