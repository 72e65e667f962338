// SPDX-License-Identifier: BSD-2-Clause
/*
 * Host tests of the D compiler against the corpus in tests/d/
 * (D_CORPUS_DIR): every good/NAME.d must compile, generate code (every
 * program verified) and dump exactly good/NAME.ast; every bad/NAME.d must
 * fail, in the front end or in code generation, with exactly the lines
 * of bad/NAME.err (FILE:LINE:COLUMN: D_TAG: message, FILE being NAME.d).
 *
 * A program's first comment lines (after a #! line) may say how to compile it:
 *	// args: 10 bcache_read        macro arguments $1, $2, ... (or NAME.args,
 *	                               one argument per line)
 *	// flags: -n -C                -n: a -n argument (DT_COMPILE_PROBESPEC);
 *	                               -C: run the C preprocessor
 *	// options: bufsize=4m quiet   -x options
 *
 * Every mismatch is printed (file, line, expected and actual text); the
 * test's own failure names the first. With D_CORPUS_UPDATE=1 in the
 * environment the expected files are rewritten instead (review the diff).
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "host_test.h"
#include "dtrace.h"

#ifndef D_CORPUS_DIR
#error "D_CORPUS_DIR must name tests/d (the Makefile passes it)"
#endif

#define MAX_FILES 512
#define MAX_ARGS 16

static char *read_text(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	long size = ftell(f);
	fseek(f, 0, SEEK_SET);
	char *buf = malloc((size_t)(size > 0 ? size : 0) + 1);
	size_t n = buf && size > 0 ? fread(buf, 1, (size_t)size, f) : 0;
	fclose(f);
	if (buf)
		buf[n] = '\0';
	if (len)
		*len = n;
	return buf;
}

static int compare_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* dir/NAME + ext, NAME being name without its ".d"; false if it does not fit. */
static bool path_of(char *buf, size_t size, const char *dir, const char *name, const char *ext)
{
	size_t dl = strlen(dir), nl = strlen(name) - 2, el = strlen(ext);
	if (dl + 1 + nl + el + 1 > size)
		return false;
	memcpy(buf, dir, dl);
	buf[dl] = '/';
	memcpy(buf + dl + 1, name, nl);
	memcpy(buf + dl + 1 + nl, ext, el + 1);
	return true;
}

static bool has_suffix(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);
	return n > k && !strcmp(s + n - k, suffix);
}

/*
 * The sorted names of dir's *.d files (malloc'd); *orphan names an
 * expected or args file whose program is missing (a renamed test), if any.
 */
static int list_programs(const char *dir, char **names, char *orphan, size_t orphan_size)
{
	DIR *d = opendir(dir);
	int n = 0;
	if (!d)
		return -1;
	orphan[0] = '\0';
	for (struct dirent *e; (e = readdir(d)) && n < MAX_FILES;) {
		const char *name = e->d_name;
		if (has_suffix(name, ".d")) {
			names[n++] = strdup(name);
		} else if (has_suffix(name, ".ast") || has_suffix(name, ".err") ||
			   has_suffix(name, ".args")) {
			char program[1024], stem[300];
			snprintf(stem, sizeof(stem), "%.*s.d", (int)strcspn(name, "."), name);
			FILE *f = path_of(program, sizeof(program), dir, stem, ".d") ?
				  fopen(program, "r") : NULL;
			if (f)
				fclose(f);
			else
				snprintf(orphan, orphan_size, "%s", name);
		}
	}
	closedir(d);
	qsort(names, (size_t)n, sizeof(*names), compare_names);
	return n;
}

struct recipe {
	char *storage;			/* the words below point into it */
	const char *argv[MAX_ARGS];
	int argc;
	struct dt_options options;
	unsigned flags;
	bool bad_option;
};

/* Read "// key: words" header lines, and NAME.args if present. */
static void read_recipe(const char *src, const char *args_path, struct recipe *r)
{
	memset(r, 0, sizeof(*r));
	dt_options_init(&r->options);
	r->storage = strdup(src);
	char *args_file = read_text(args_path, NULL);
	char *line = r->storage;
	if (line && !strncmp(line, "#!", 2))	/* an interpreter line comes first */
		line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL;
	while (line && !strncmp(line, "// ", 3)) {
		char *eol = strchr(line, '\n');
		if (eol)
			*eol = '\0';
		char *words = strchr(line, ':');
		for (char *w = words ? strtok(words + 1, " \t") : NULL; w; w = strtok(NULL, " \t")) {
			if (!strncmp(line, "// args:", 8) && r->argc < MAX_ARGS) {
				r->argv[r->argc++] = w;
			} else if (!strncmp(line, "// flags:", 9)) {
				r->flags |= !strcmp(w, "-n") ? DT_COMPILE_PROBESPEC :
					    !strcmp(w, "-C") ? DT_COMPILE_CPP : 0;
			} else if (!strncmp(line, "// options:", 11)) {
				char err[200], *eq = strchr(w, '=');
				if (eq)
					*eq = '\0';
				if (dt_option_set(&r->options, w, eq ? eq + 1 : NULL, err, sizeof(err)))
					r->bad_option = true;
			}
		}
		line = eol ? eol + 1 : NULL;
	}
	if (args_file) {
		free(r->storage);
		r->storage = args_file;
		r->argc = 0;
		for (char *a = strtok(args_file, "\n"); a && r->argc < MAX_ARGS; a = strtok(NULL, "\n"))
			r->argv[r->argc++] = a;
	}
}

/* Compile dir/name as the corpus says: its dump (good) or its error lines (bad). */
static char *compile_entry(const char *dir, const char *name, bool *compiled)
{
	char path[1024], args_path[1024];
	size_t len;
	if (!path_of(path, sizeof(path), dir, name, ".d") ||
	    !path_of(args_path, sizeof(args_path), dir, name, ".args"))
		return NULL;
	char *src = read_text(path, &len);
	if (!src)
		return NULL;
	struct recipe r;
	read_recipe(src, args_path, &r);
	struct dt_compile_args args = { .filename = name, .argc = r.argc, .argv = r.argv,
					.flags = r.flags, .options = &r.options };
	struct dt_program *p = dt_compile_with(src, len, &args);
	struct dt_object *obj = NULL;
	char *out = NULL;
	if (p && p->nerrors == 0)
		dt_generate(p, &obj);
	for (uint32_t i = 0; obj && i < obj->nprogs; i++) {
		char why[200];
		if (dif_verify(&obj->progs[i], why, sizeof(why))) {
			printf("  d corpus: %s: program %u does not verify: %s\n", name, i, why);
			r.bad_option = true;
		}
	}
	*compiled = p && p->nerrors == 0 && !r.bad_option;
	if (p && p->nerrors == 0) {
		out = dt_program_dump(p);
	} else if (p) {
		size_t cap = 256, used = 0;
		out = calloc(1, cap);
		for (int i = 0; out && i < p->nerrors; i++) {
			char line[1024];
			int n = dt_error_format(&p->errors[i], DT_ERRFMT_TAGGED, line, sizeof(line));
			if (n < 0 || n >= (int)sizeof(line))
				n = (int)strlen(line);
			while (used + (size_t)n + 2 > cap)
				out = realloc(out, cap *= 2);
			if (!out)
				break;
			memcpy(out + used, line, (size_t)n);
			used += (size_t)n;
			out[used++] = '\n';
			out[used] = '\0';
		}
	}
	dt_program_free(p);
	free(r.storage);
	free(src);
	return out;
}

/* The first differing line of want and got, printed; false if they differ. */
static bool same_text(const char *file, const char *want, const char *got, char *why,
		      size_t whysize)
{
	int line = 1;
	const char *w = want, *g = got;
	while (*w && *g && *w == *g) {
		if (*w == '\n')
			line++;
		w++;
		g++;
	}
	if (!*w && !*g)
		return true;
	while (w > want && w[-1] != '\n')
		w--;
	while (g > got && g[-1] != '\n')
		g--;
	int wl = (int)strcspn(w, "\n"), gl = (int)strcspn(g, "\n");
	snprintf(why, whysize, "%s: line %d: expected `%.*s`, got `%.*s`", file, line,
		 wl > 200 ? 200 : wl, w, gl > 200 ? 200 : gl, g);
	printf("  d corpus mismatch: %s\n", why);
	return false;
}

static void walk(struct host_test_ctx *t, const char *kind, const char *expected_ext,
		 bool want_compiled, int minimum)
{
	char dir[1024], *names[MAX_FILES], orphan[256];
	bool update = getenv("D_CORPUS_UPDATE") != NULL;
	int failures = 0;

	snprintf(dir, sizeof(dir), "%s/%s", D_CORPUS_DIR, kind);
	int n = list_programs(dir, names, orphan, sizeof(orphan));
	REQUIRE(t, n >= 0, "cannot list %s", dir);
	CHECK(t, !orphan[0], "%s/%s has no program next to it", kind, orphan);
	CHECK(t, n >= minimum, "%s: %d programs, the corpus should have at least %d", kind, n,
	      minimum);
	for (int i = 0; i < n; i++) {
		char exp_path[1024], why[600], label[300];
		bool compiled = false;
		snprintf(label, sizeof(label), "%s/%.200s", kind, names[i]);
		if (!path_of(exp_path, sizeof(exp_path), dir, names[i], expected_ext)) {
			CHECK(t, false, "%s: path too long", label);
			free(names[i]);
			continue;
		}
		char *got = compile_entry(dir, names[i], &compiled);
		if (!got) {
			CHECK(t, false, "%s: cannot read or compile", label);
			failures++;
			free(names[i]);
			continue;
		}
		if (compiled != want_compiled) {
			snprintf(why, sizeof(why), "%s: %s, first line: %.*s", label,
				 want_compiled ? "does not compile" : "compiles", (int)strcspn(got, "\n"),
				 got);
			printf("  d corpus mismatch: %s\n", why);
			CHECK(t, false, "%s", why);
			failures++;
		}
		if (update) {
			FILE *f = fopen(exp_path, "w");
			CHECK(t, f != NULL, "cannot write %s", exp_path);
			if (f) {
				fputs(got, f);
				fclose(f);
			}
		} else {
			char *want = read_text(exp_path, NULL);
			if (!want) {
				snprintf(why, sizeof(why), "%s: no %s file (D_CORPUS_UPDATE=1 writes it)",
					 label, expected_ext);
				printf("  d corpus mismatch: %s\n", why);
				CHECK(t, false, "%s", why);
				failures++;
			} else if (!same_text(label, want, got, why, sizeof(why))) {
				CHECK(t, false, "%s", why);
				failures++;
			}
			free(want);
		}
		free(got);
		free(names[i]);
	}
	if (failures)
		printf("  d corpus: %d of %d %s programs differ from their %s files\n", failures, n,
		       kind, expected_ext);
}

HOST_TEST(d_corpus_good)
{
	walk(t, "good", ".ast", true, 60);
}

HOST_TEST(d_corpus_bad)
{
	walk(t, "bad", ".err", false, 40);
}
