// SPDX-License-Identifier: BSD-2-Clause
/*
 * The D lexer: identifiers and keywords, integer, character and string
 * literals, C's operators, @aggregations, macro arguments ($1, $$1),
 * comments, and the `#` control lines (line markers from cpp, #pragma).
 *
 * D is context-sensitive: `fbt::bcache_*:entry` is one token at the start
 * of a clause but an expression anywhere else. The parser says which it
 * expects (enum dt_lex_mode): at a clause start a keyword or typedef name
 * begins a declaration and anything else made of probe-description
 * characters is one T_PDESC token.
 *
 * Invariants: never reads src beyond len (the source need not be
 * NUL-terminated and may contain NULs); every token carries the file,
 * line and column of its first byte; a malformed token is reported once
 * and returned as T_ERROR, and the lexer always advances by at least one
 * byte per token, so it terminates on any input.
 */
#include <stdio.h>
#include <string.h>
#include "dt_impl.h"

#define MAX_IDENT 255
#define MAX_PDESC 1024

static const struct {
	const char *name;
	enum dt_tok tok;
} keywords[] = {
#define DT_X(id, s) { s, T_KW_##id },
	DT_KEYWORDS(DT_X)
#undef DT_X
};

/* Longest first: the lexer takes the first entry that matches. */
static const struct {
	const char *text;
	enum dt_tok tok;
} punctuators[] = {
#define DT_X(id, s) { s, T_##id },
	DT_PUNCTUATORS(DT_X)
#undef DT_X
};

static int peekc(const struct dt_lexer *lx, size_t off)
{
	return lx->pos + off < lx->len ? (unsigned char)lx->src[lx->pos + off] : -1;
}

static struct dt_loc here(const struct dt_lexer *lx)
{
	return (struct dt_loc){ lx->file, lx->line, (int)(lx->pos - lx->line_start) + 1 };
}

static bool is_ident_start(int c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

static bool is_ident_char(int c)
{
	return is_ident_start(c) || (c >= '0' && c <= '9');
}

static bool is_digit(int c)
{
	return c >= '0' && c <= '9';
}

/* Characters a probe description is made of (globs, insn's function+0xoff, macros). */
static bool is_pdesc_char(int c)
{
	return is_ident_char(c) || (c != -1 && strchr("-.:*?[]!\\$+^`", c) && c != '\0');
}

static void lex_error(struct dt_lexer *lx, struct dt_loc loc, enum dt_errtag tag,
		      const char *msg, const char *detail)
{
	lx->ctx->nsyntax++;
	dt_error(lx->ctx, loc, tag, "%s%s", msg, detail ? detail : "");
}

static void newline(struct dt_lexer *lx)
{
	lx->pos++;
	lx->line++;
	lx->line_start = lx->pos;
	lx->line_has_token = false;
}

void dt_lex_init(struct dt_lexer *lx, struct dt_ctx *ctx, const char *src, size_t len)
{
	*lx = (struct dt_lexer){ .ctx = ctx, .src = src, .len = len, .line = 1,
				 .file = ctx->filename };
	/* An interpreter line (#!/usr/sbin/dtrace -s) is not D. */
	if (len >= 2 && src[0] == '#' && src[1] == '!')
		while (lx->pos < len && src[lx->pos] != '\n')
			lx->pos++;
}

bool dt_parse_int_literal(const char *s, size_t len, uint64_t *value, struct dt_type *type,
			  bool *typed, bool *overflow)
{
	size_t i = 0;
	unsigned base = 10;
	uint64_t v = 0;

	*overflow = false;
	if (len == 0 || !is_digit((unsigned char)s[0]))
		return false;
	if (s[0] == '0' && len > 1 && (s[1] == 'x' || s[1] == 'X')) {
		base = 16;
		i = 2;
	} else if (s[0] == '0') {
		base = 8;
	}
	size_t first = i;
	for (; i < len; i++) {
		int c = (unsigned char)s[i], d;
		if (is_digit(c))
			d = c - '0';
		else if (base == 16 && c >= 'a' && c <= 'f')
			d = c - 'a' + 10;
		else if (base == 16 && c >= 'A' && c <= 'F')
			d = c - 'A' + 10;
		else
			break;
		if ((unsigned)d >= base)
			return false;
		if (v > (UINT64_MAX - (unsigned)d) / base)
			*overflow = true;
		v = v * base + (unsigned)d;
	}
	if (i == first)
		return false;
	/* Suffixes: at most one u, and l or ll (same case), in either order. */
	bool u = false, l = false;
	size_t suffix = i;
	while (i < len) {
		if ((s[i] == 'u' || s[i] == 'U') && !u) {
			u = true;
			i++;
		} else if ((s[i] == 'l' || s[i] == 'L') && !l) {
			l = true;
			i += i + 1 < len && s[i + 1] == s[i] ? 2 : 1;
		} else {
			return false;
		}
	}
	*value = v;
	char suffixes[4] = "";
	memcpy(suffixes, s + suffix, len - suffix);	/* at most "ull" */
	*typed = dt_int_literal_type(v, base == 10, suffixes, type);
	return true;
}

/* A #line or cpp line marker: the next line is number n of file. */
static void line_marker(struct dt_lexer *lx, const char *p, const char *end)
{
	long n = 0;
	while (p < end && is_digit((unsigned char)*p) && n < 100000000)
		n = n * 10 + (*p++ - '0');
	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	if (p < end && *p == '"') {
		const char *q = ++p;
		while (q < end && *q != '"')
			q++;
		size_t flen = (size_t)(q - p);
		if (lx->ctx->cpp_input && strlen(lx->ctx->cpp_input) == flen &&
		    !memcmp(lx->ctx->cpp_input, p, flen))
			lx->file = lx->ctx->filename;
		else
			lx->file = dt_strndup(lx->ctx, p, flen);
	}
	lx->line = n > 0 ? (int)n - 1 : 0;	/* the newline ending the marker makes it n */
}

static const char *const cpp_only_directives[] = {
	"include", "define", "undef", "if", "ifdef", "ifndef", "elif", "else", "endif",
	"error", "warning", "import", "include_next",
};

/* A control line: '#' first on its line, up to (not including) the newline. */
static void directive(struct dt_lexer *lx)
{
	struct dt_loc loc = here(lx);
	size_t start = lx->pos + 1;
	while (lx->pos < lx->len && lx->src[lx->pos] != '\n')
		lx->pos++;
	const char *p = lx->src + start, *end = lx->src + lx->pos;
	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	const char *word = p;
	while (p < end && is_ident_char((unsigned char)*p))
		p++;
	size_t wlen = (size_t)(p - word);
	while (p < end && (*p == ' ' || *p == '\t'))
		p++;

	if (wlen == 0 && word == end)
		return;				/* the null directive */
	if (wlen > 0 && is_digit((unsigned char)word[0])) {
		line_marker(lx, word, end);
		return;
	}
	if (wlen == 4 && !memcmp(word, "line", 4)) {
		line_marker(lx, p, end);
		return;
	}
	if (wlen == 6 && !memcmp(word, "pragma", 6)) {
		dt_pragma(lx->ctx, loc, p, (size_t)(end - p));
		return;
	}
	if (wlen == 5 && !memcmp(word, "ident", 5))
		return;
	for (size_t i = 0; i < sizeof(cpp_only_directives) / sizeof(cpp_only_directives[0]); i++)
		if (strlen(cpp_only_directives[i]) == wlen &&
		    !memcmp(cpp_only_directives[i], word, wlen)) {
			lx->ctx->nsyntax++;
			dt_error(lx->ctx, loc, D_PRAGCTL_INVAL,
				 "#%s needs the C preprocessor: compile with -C",
				 cpp_only_directives[i]);
			return;
		}
	lx->ctx->nsyntax++;
	dt_error(lx->ctx, loc, D_PRAGCTL_INVAL, "invalid control directive: #%s",
		 dt_strndup(lx->ctx, word, wlen > 32 ? 32 : wlen));
}

static void skip_space(struct dt_lexer *lx)
{
	while (lx->pos < lx->len && !lx->ctx->stopped) {
		int c = peekc(lx, 0);
		if (c == '\n') {
			newline(lx);
		} else if (c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v') {
			lx->pos++;
		} else if (c == '/' && peekc(lx, 1) == '*') {
			struct dt_loc loc = here(lx);
			lx->pos += 2;
			while (lx->pos < lx->len && !(peekc(lx, 0) == '*' && peekc(lx, 1) == '/')) {
				if (peekc(lx, 0) == '\n')
					newline(lx);
				else
					lx->pos++;
			}
			if (lx->pos >= lx->len) {
				lex_error(lx, loc, D_SYNTAX, "end of input inside a /* comment", NULL);
				return;
			}
			lx->pos += 2;
		} else if (c == '/' && peekc(lx, 1) == '/') {
			while (lx->pos < lx->len && peekc(lx, 0) != '\n')
				lx->pos++;
		} else if (c == '#' && !lx->line_has_token) {
			directive(lx);
		} else {
			return;
		}
	}
}

/* One escape after a backslash at *p; advances *p. Returns -1 if malformed. */
static int escape(const char **pp, const char *end)
{
	const char *p = *pp;
	int c = (unsigned char)*p++, v;

	switch (c) {
	case 'n': v = '\n'; break;
	case 't': v = '\t'; break;
	case 'r': v = '\r'; break;
	case 'a': v = '\a'; break;
	case 'b': v = '\b'; break;
	case 'f': v = '\f'; break;
	case 'v': v = '\v'; break;
	case 'x':
		v = 0;
		if (p >= end || !strchr("0123456789abcdefABCDEF", *p) || *p == '\0')
			return -1;
		for (int n = 0; p < end && *p && strchr("0123456789abcdefABCDEF", *p) && n < 2; n++) {
			int d = *p <= '9' ? *p - '0' : (*p | 0x20) - 'a' + 10;
			v = v * 16 + d;
			p++;
		}
		break;
	default:
		if (c >= '0' && c <= '7') {
			v = c - '0';
			for (int n = 1; n < 3 && p < end && *p >= '0' && *p <= '7'; n++)
				v = v * 8 + (*p++ - '0');
			if (v > 255)
				return -1;
		} else {
			v = c;		/* \\ \' \" \? and, as in C compilers, any other */
		}
	}
	*pp = p;
	return v;
}

/* A string ("...") or character ('.') literal; pos at the quote. */
static void lex_quoted(struct dt_lexer *lx, struct dt_token *tok)
{
	int quote = peekc(lx, 0);
	size_t start = ++lx->pos;

	while (lx->pos < lx->len && peekc(lx, 0) != quote && peekc(lx, 0) != '\n') {
		if (peekc(lx, 0) == '\\' && lx->pos + 1 < lx->len && peekc(lx, 1) != '\n')
			lx->pos++;
		lx->pos++;
	}
	bool is_string = quote == '"';
	if (lx->pos >= lx->len || peekc(lx, 0) == '\n') {
		tok->kind = T_ERROR;
		if (is_string)
			lex_error(lx, tok->loc, D_STR_NL, lx->pos >= lx->len ?
				  "end of input in a string literal (missing \")" :
				  "newline in a string literal (missing \")", NULL);
		else
			lex_error(lx, tok->loc, D_CHR_NL, "newline or end of input in a character "
				  "constant (missing ')", NULL);
		return;
	}
	const char *p = lx->src + start, *end = lx->src + lx->pos;
	lx->pos++;			/* the closing quote */
	char *out = dt_alloc(lx->ctx, (size_t)(end - p) + 1);
	size_t n = 0;
	while (p < end) {
		int c = (unsigned char)*p++;
		if (c == '\\') {
			c = escape(&p, end);
			if (c < 0) {
				tok->kind = T_ERROR;
				lex_error(lx, tok->loc, D_SYNTAX, "malformed escape sequence in a ",
					  is_string ? "string literal" : "character constant");
				return;
			}
		}
		out[n++] = (char)c;
	}
	if (is_string) {
		tok->kind = T_STRING;
		tok->text = out;
		tok->len = n;
	} else if (n == 0) {
		tok->kind = T_ERROR;
		lex_error(lx, tok->loc, D_CHR_NULL, "empty character constant ''", NULL);
	} else if (n > 1) {
		tok->kind = T_ERROR;
		lex_error(lx, tok->loc, D_CHR_OFLOW, "character constant holds more than one "
			  "character", NULL);
	} else {
		tok->kind = T_INT;
		tok->value = (unsigned char)out[0];
		tok->type = dt_type_int32;	/* as in C and dtrace, 'c' is an int */
	}
}

/* A decimal constant above LONG_MAX: dtrace's words for it. */
static void untyped_constant(struct dt_lexer *lx, struct dt_token *tok)
{
	lx->ctx->nsyntax++;
	dt_error(lx->ctx, tok->loc, D_INT_OFLOW, "integer constant 0x%llx cannot be represented "
		 "in any built-in integral type", (unsigned long long)tok->value);
}

static void lex_number(struct dt_lexer *lx, struct dt_token *tok)
{
	size_t start = lx->pos;
	while (lx->pos < lx->len && (is_ident_char(peekc(lx, 0)) || peekc(lx, 0) == '.'))
		lx->pos++;
	const char *s = lx->src + start;
	size_t len = lx->pos - start;
	bool overflow, typed;
	const char *spelled = dt_strndup(lx->ctx, s, len > 40 ? 40 : len);

	tok->kind = T_ERROR;
	if (memchr(s, '.', len) || (!(len > 1 && (s[1] == 'x' || s[1] == 'X')) &&
				    (memchr(s, 'e', len) || memchr(s, 'E', len))))
		lex_error(lx, tok->loc, D_UNSUPPORTED, "floating-point constants are not "
			  "supported: ", spelled);
	else if (!dt_parse_int_literal(s, len, &tok->value, &tok->type, &typed, &overflow))
		lex_error(lx, tok->loc, D_INT_DIGIT, "invalid digit or suffix in integer "
			  "constant ", spelled);
	else if (overflow)
		lex_error(lx, tok->loc, D_INT_OFLOW, "integer constant does not fit in 64 bits: ",
			  spelled);
	else if (!typed)
		untyped_constant(lx, tok);
	else
		tok->kind = T_INT;
}

/* The text of macro argument n ($0 is the file name), or NULL with an error reported. */
static const char *macro_text(struct dt_lexer *lx, struct dt_token *tok, unsigned long n,
			      bool as_string)
{
	struct dt_ctx *ctx = lx->ctx;
	if (n == 0)
		return ctx->filename;
	if (n <= (unsigned long)ctx->argc) {
		ctx->arg_used[n] = true;
		return ctx->argv[n - 1] ? ctx->argv[n - 1] : "";
	}
	if (dt_defaultargs(ctx))
		return as_string ? "" : "0";
	lx->ctx->nsyntax++;
	dt_error(ctx, tok->loc, D_MACRO_UNDEF, "macro argument %s%lu is not defined",
		 as_string ? "$$" : "$", n);
	return NULL;
}

/* $N, $$N or $name at pos; for $N, an integer or identifier token. */
static void lex_macro(struct dt_lexer *lx, struct dt_token *tok)
{
	bool as_string = peekc(lx, 1) == '$';
	lx->pos += as_string ? 2 : 1;
	size_t start = lx->pos;
	unsigned long n = 0;

	const char *text;
	tok->kind = T_ERROR;
	if (!is_digit(peekc(lx, 0))) {
		while (is_ident_char(peekc(lx, 0)))
			lx->pos++;
		const char *name = dt_strndup(lx->ctx, lx->src + start,
					      lx->pos - start > 32 ? 32 : lx->pos - start);
		const char *target = lx->ctx->args ? lx->ctx->args->target : NULL;
		if (lx->pos == start) {
			lex_error(lx, tok->loc, D_SYNTAX, "invalid character '$'", NULL);
			return;
		}
		if (strcmp(name, "target")) {
			lex_error(lx, tok->loc, D_UNSUPPORTED, "macro variables other than $target "
				  "are not supported: $", name);
			return;
		}
		if (!target) {
			lx->ctx->nsyntax++;
			dt_error(lx->ctx, tok->loc, D_MACRO_UNDEF, "macro variable $target is not "
				 "defined: give the process with -p PID");
			return;
		}
		text = target;
	} else {
		while (is_digit(peekc(lx, 0))) {
			if (n < 100000)
				n = n * 10 + (unsigned long)(peekc(lx, 0) - '0');
			lx->pos++;
		}
		text = macro_text(lx, tok, n, as_string);
		if (!text)
			return;
	}
	size_t len = strlen(text);
	if (as_string) {
		tok->kind = T_STRING;
		tok->text = text;
		tok->len = len;
		return;
	}
	bool overflow, typed, neg = len > 0 && text[0] == '-';
	size_t skip = len > 0 && (text[0] == '-' || text[0] == '+');
	if (dt_parse_int_literal(text + skip, len - skip, &tok->value, &tok->type, &typed,
				 &overflow)) {
		if (overflow) {
			lex_error(lx, tok->loc, D_INT_OFLOW, "macro argument does not fit in 64 "
				  "bits: ", dt_quote(lx->ctx, text, len, 40));
			return;
		}
		if (!typed) {
			untyped_constant(lx, tok);
			return;
		}
		/* As dtrace: -N is N negated in N's type (so -1 is an int). */
		if (neg)
			tok->value = dt_type_normalize(tok->type, 0 - tok->value);
		tok->kind = T_INT;
		return;
	}
	bool ident = len > 0 && len <= MAX_IDENT && is_ident_start((unsigned char)text[0]);
	for (size_t i = 0; ident && i < len; i++)
		ident = is_ident_char((unsigned char)text[i]);
	if (ident) {
		tok->kind = T_IDENT;
		tok->text = text;
		tok->len = len;
		return;
	}
	lx->ctx->nsyntax++;
	dt_error(lx->ctx, tok->loc, D_MACRO_BADARG, "macro argument $%lu (%s) is neither an "
		 "integer nor an identifier; use $$%lu for its string value", n,
		 dt_quote(lx->ctx, text, len, 40), n);
}

/* A probe description: pdesc characters, macro arguments expanded. */
static void lex_pdesc(struct dt_lexer *lx, struct dt_token *tok)
{
	char buf[MAX_PDESC];
	size_t n = 0;
	bool too_long = false;

	while (is_pdesc_char(peekc(lx, 0))) {
		const char *piece;
		char one;
		size_t plen;
		if (peekc(lx, 0) == '$') {
			struct dt_token mt = { .loc = here(lx) };
			bool as_string = peekc(lx, 1) == '$';
			size_t at = lx->pos + (as_string ? 2 : 1);
			if (at < lx->len && is_digit((unsigned char)lx->src[at])) {
				unsigned long num = 0;
				for (lx->pos = at; is_digit(peekc(lx, 0)); lx->pos++)
					if (num < 100000)
						num = num * 10 + (unsigned long)(peekc(lx, 0) - '0');
				piece = macro_text(lx, &mt, num, as_string);
				if (!piece) {
					tok->kind = T_ERROR;
					return;
				}
			} else {
				lex_macro(lx, &mt);	/* reports $name or a lone $ */
				tok->kind = T_ERROR;
				return;
			}
			plen = strlen(piece);
		} else {
			one = (char)peekc(lx, 0);
			piece = &one;
			plen = 1;
			lx->pos++;
		}
		if (n + plen > sizeof(buf)) {
			too_long = true;
			continue;
		}
		memcpy(buf + n, piece, plen);
		n += plen;
	}
	if (too_long) {
		tok->kind = T_ERROR;
		lex_error(lx, tok->loc, D_PDESC_INVAL, "probe description is longer than 1024 "
			  "characters", NULL);
		return;
	}
	tok->kind = T_PDESC;
	tok->text = dt_strndup(lx->ctx, buf, n);
	tok->len = n;
}

static enum dt_tok keyword(const char *s, size_t len)
{
	for (size_t i = 0; i < sizeof(keywords) / sizeof(keywords[0]); i++)
		if (strlen(keywords[i].name) == len && !memcmp(keywords[i].name, s, len))
			return keywords[i].tok;
	return T_IDENT;
}

static void lex_word(struct dt_lexer *lx, struct dt_token *tok)
{
	size_t start = lx->pos;
	while (is_ident_char(peekc(lx, 0)))
		lx->pos++;
	size_t len = lx->pos - start;
	if (len > MAX_IDENT) {
		tok->kind = T_ERROR;
		lex_error(lx, tok->loc, D_ID_OFLOW, "identifier is longer than 255 characters",
			  NULL);
		return;
	}
	tok->kind = keyword(lx->src + start, len);
	tok->text = dt_strndup(lx->ctx, lx->src + start, len);
	tok->len = len;
}

static void lex_punctuator_or_garbage(struct dt_lexer *lx, struct dt_token *tok)
{
	for (size_t i = 0; i < sizeof(punctuators) / sizeof(punctuators[0]); i++) {
		size_t n = strlen(punctuators[i].text);
		if (lx->pos + n <= lx->len && !memcmp(lx->src + lx->pos, punctuators[i].text, n)) {
			tok->kind = punctuators[i].tok;
			lx->pos += n;
			return;
		}
	}
	int c = peekc(lx, 0);
	char what[16];
	if (c >= 0x21 && c < 0x7f)
		snprintf(what, sizeof(what), "'%c'", c);
	else
		snprintf(what, sizeof(what), "byte 0x%02x", c);
	lx->pos++;
	/* One error for a whole UTF-8 sequence. */
	while (c >= 0xc0 && peekc(lx, 0) >= 0x80 && peekc(lx, 0) < 0xc0)
		lx->pos++;
	tok->kind = T_ERROR;
	lex_error(lx, tok->loc, D_SYNTAX, "invalid character ", what);
}

void dt_lex_next(struct dt_lexer *lx, enum dt_lex_mode mode, struct dt_token *tok)
{
	skip_space(lx);
	*tok = (struct dt_token){ .loc = here(lx), .src_offset = lx->pos };
	if (lx->pos >= lx->len || lx->ctx->stopped) {
		tok->kind = T_EOF;
		return;
	}
	lx->line_has_token = true;
	int c = peekc(lx, 0);
	if (mode == DT_LEX_CLAUSE_START && is_ident_start(c)) {
		/* Keywords and typedef names start declarations; other words are probes. */
		size_t end = lx->pos;
		while (end < lx->len && is_ident_char((unsigned char)lx->src[end]))
			end++;
		const char *w = lx->src + lx->pos;
		size_t wlen = end - lx->pos;
		if (keyword(w, wlen) == T_IDENT && !dt_typedef_lookup(w, wlen) &&
		    !dt_ctf_typedef(lx->ctx, w, wlen, NULL))
			mode = DT_LEX_PDESC;
	} else if (mode == DT_LEX_CLAUSE_START && is_pdesc_char(c)) {
		mode = DT_LEX_PDESC;
	}

	if (mode == DT_LEX_PDESC && is_pdesc_char(c))
		lex_pdesc(lx, tok);
	else if (is_ident_start(c))
		lex_word(lx, tok);
	else if (is_digit(c))
		lex_number(lx, tok);
	else if (c == '"' || c == '\'')
		lex_quoted(lx, tok);
	else if (c == '$')
		lex_macro(lx, tok);
	else if (c == '@') {
		size_t start = ++lx->pos;
		while (is_ident_char(peekc(lx, 0)))
			lx->pos++;
		tok->kind = T_AGG;
		tok->len = lx->pos - start;
		tok->text = dt_strndup(lx->ctx, lx->src + start, tok->len);
		if (tok->len > MAX_IDENT) {
			tok->kind = T_ERROR;
			lex_error(lx, tok->loc, D_ID_OFLOW, "aggregation name is longer than 255 "
				  "characters", NULL);
		}
	} else {
		lex_punctuator_or_garbage(lx, tok);
	}
	tok->src_len = lx->pos - tok->src_offset;
}

const char *dt_tok_spelling(struct dt_lexer *lx, const struct dt_token *tok)
{
	if (tok->kind == T_EOF)
		return "end of input";
	return dt_quote(lx->ctx, lx->src + tok->src_offset, tok->src_len, 32);
}
