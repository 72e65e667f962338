// SPDX-License-Identifier: BSD-2-Clause
/*
 * dcheck: compile a D program with the front end and print the checked
 * AST (dt_program_dump) or the errors, one per line. For trying the
 * compiler by hand and for scripts; exits 0 when the program compiles,
 * 1 when it has errors, 2 on a usage or I/O problem.
 *
 *   dcheck [-C] [-d] [-x name[=value]]... -s FILE [args...]
 *   dcheck [-C] [-d] [-x name[=value]]... -n 'PROGRAM' [args...]
 *
 * -C runs the C preprocessor first, -d prints errors as dtrace does
 * (default: FILE:LINE:COLUMN: D_TAG: message), args are $1, $2, ...
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "dtrace.h"

static void usage(void)
{
	fprintf(stderr, "usage: dcheck [-C] [-d] [-x name[=value]]... (-s FILE | -n PROGRAM) "
		"[args...]\n");
	exit(2);
}

/* The whole file (or stdin for "-"), malloc'd; NULL with errno on failure. */
static char *read_file(const char *path, size_t *len)
{
	FILE *f = strcmp(path, "-") ? fopen(path, "rb") : stdin;
	size_t cap = 4096, n = 0;
	char *buf = f ? malloc(cap) : NULL;

	while (buf) {
		n += fread(buf + n, 1, cap - n, f);
		if (n < cap)
			break;
		char *bigger = realloc(buf, cap *= 2);
		if (!bigger)
			free(buf);
		buf = bigger;
	}
	if (f && ferror(f)) {
		free(buf);
		buf = NULL;
	}
	if (f && f != stdin)
		fclose(f);
	*len = n;
	return buf;
}

int main(int argc, char **argv)
{
	struct dt_options opts;
	struct dt_compile_args args = { 0 };
	enum dt_error_style style = DT_ERRFMT_TAGGED;
	const char *file = NULL, *program = NULL;
	int i;

	dt_options_init(&opts);
	for (i = 1; i < argc && argv[i][0] == '-' && argv[i][1]; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "-C")) {
			args.flags |= DT_COMPILE_CPP;
		} else if (!strcmp(a, "-d")) {
			style = DT_ERRFMT_DTRACE;
		} else if (!strcmp(a, "-x") || !strcmp(a, "-s") || !strcmp(a, "-n")) {
			if (++i == argc)
				usage();
			if (a[1] == 's')
				file = argv[i];
			else if (a[1] == 'n')
				program = argv[i];
			else {
				char err[200], *name = strdup(argv[i]);
				char *eq = name ? strchr(name, '=') : NULL;
				if (eq)
					*eq = '\0';
				if (!name || dt_option_set(&opts, name, eq ? eq + 1 : NULL, err,
							   sizeof(err)) < 0) {
					fprintf(stderr, "dcheck: -x %s: %s\n", argv[i],
						name ? err : "out of memory");
					free(name);
					return 2;
				}
				free(name);
			}
			if (file || program)
				break;
		} else {
			usage();
		}
	}
	if (!file == !program)
		usage();
	i++;

	size_t len;
	char *source;
	if (file) {
		source = read_file(file, &len);
		if (!source) {
			fprintf(stderr, "dcheck: cannot read %s: %s\n", file, strerror(errno));
			return 2;
		}
		args.filename = file;
	} else {
		source = strdup(program);
		len = strlen(program);
		args.filename = "-n";
		args.flags |= DT_COMPILE_PROBESPEC;
	}
	args.argc = argc - i;
	args.argv = (const char *const *)argv + i;
	args.options = &opts;

	struct dt_program *p = dt_compile_with(source, len, &args);
	free(source);
	if (!p) {
		fprintf(stderr, "dcheck: out of memory\n");
		return 2;
	}
	int rc = 0;
	if (p->nerrors) {
		for (int e = 0; e < p->nerrors; e++) {
			char line[1024];
			dt_error_format(&p->errors[e], style, line, sizeof(line));
			puts(line);
		}
		rc = 1;
	} else {
		char *dump = dt_program_dump(p);
		if (!dump) {
			fprintf(stderr, "dcheck: out of memory\n");
			rc = 2;
		} else {
			fputs(dump, stdout);
			free(dump);
		}
	}
	dt_program_free(p);
	return rc;
}
