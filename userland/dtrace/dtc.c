// SPDX-License-Identifier: BSD-2-Clause
/*
 * dtc: compile a D program into the trace object the kernel loads and
 * describe it for the host consumer as one JSON document (dt_json.c has
 * its layout): the object's bytes, the options, the aggregations, and
 * each clause's record layout and actions.
 *
 *   dtc [-C] [-S] [-x name[=value]]... [-o FILE] (-s FILE | -n PROGRAM) [args...]
 *
 * -C runs the C preprocessor first, -S prints the generated programs
 * disassembled instead of the JSON, -x sets an option, -o writes to FILE
 * instead of stdout, args are the macro arguments $1, $2...
 * Errors go to stderr as dtrace prints them, one per line:
 *   dtrace: failed to compile script FILE: line N: MESSAGE      (-s)
 *   dtrace: invalid probe specifier PROGRAM: MESSAGE             (-n)
 * Sizes past the kernel's maximum are lowered (bufresize=auto) with a line
 * such as "dtrace: aggregation size lowered to 1m" on stderr.
 * Exit status: 0 compiled, 1 compile errors, 2 usage, option or I/O problem.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "dtrace.h"

#define EXIT_COMPILE_ERRORS 1
#define EXIT_USAGE 2

static void usage(void)
{
	fprintf(stderr, "usage: dtc [-C] [-S] [-x name[=value]]... [-o FILE] (-s FILE | -n PROGRAM) "
		"[args...]\n");
	exit(EXIT_USAGE);
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

/* -x name[=value]: false after printing why. */
static bool set_option(struct dt_options *opts, const char *arg)
{
	char err[200], *name = strdup(arg);
	char *eq = name ? strchr(name, '=') : NULL;
	if (eq)
		*eq = '\0';
	bool ok = name && dt_option_set(opts, name, eq ? eq + 1 : NULL, err, sizeof(err)) == 0;
	if (!ok)
		fprintf(stderr, "dtrace: failed to set -x %s: %s\n", arg, name ? err : "out of memory");
	free(name);
	return ok;
}

static void print_errors(const struct dt_program *p, const char *program_text)
{
	for (int e = 0; e < p->nerrors; e++) {
		char line[1024];
		if (program_text)
			snprintf(line, sizeof(line), "dtrace: invalid probe specifier %s: %s",
				 program_text, p->errors[e].message);
		else
			dt_error_format(&p->errors[e], DT_ERRFMT_DTRACE, line, sizeof(line));
		fprintf(stderr, "%s\n", line);
	}
}

/* Like dtrace with bufresize=auto: say which sizes the object carries reduced. */
static void warn_lowered(const struct dt_program *p, const struct dt_object *obj)
{
	static const struct {
		enum dt_option_id option;
		enum dof_option dof;
		const char *what;
	} sizes[] = {
		{ DT_OPT_NSPEC, DOF_OPT_NSPEC, "number of speculations" },
		{ DT_OPT_SPECSIZE, DOF_OPT_SPECSIZE, "speculation buffer size" },
		{ DT_OPT_DYNVARSIZE, DOF_OPT_DYNVARSIZE, "dynamic variable size" },
		{ DT_OPT_AGGSIZE, DOF_OPT_AGGSIZE, "aggregation size" },
	};
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		uint64_t v = obj->option[sizes[i].dof];
		if (!obj->option_set[sizes[i].dof] || v == p->options.value[sizes[i].option])
			continue;
		if (sizes[i].dof != DOF_OPT_NSPEC && v % (1024 * 1024) == 0)
			fprintf(stderr, "dtrace: %s lowered to %llum\n", sizes[i].what,
				(unsigned long long)(v >> 20));
		else if (sizes[i].dof != DOF_OPT_NSPEC && v % 1024 == 0)
			fprintf(stderr, "dtrace: %s lowered to %lluk\n", sizes[i].what,
				(unsigned long long)(v >> 10));
		else
			fprintf(stderr, "dtrace: %s lowered to %llu\n", sizes[i].what,
				(unsigned long long)v);
	}
}

static int write_output(const char *path, const char *text)
{
	FILE *f = path ? fopen(path, "w") : stdout;
	if (!f) {
		fprintf(stderr, "dtc: cannot write %s: %s\n", path, strerror(errno));
		return EXIT_USAGE;
	}
	bool ok = fputs(text, f) >= 0;
	ok = (f == stdout ? fflush(f) == 0 : fclose(f) == 0) && ok;
	if (!ok) {
		fprintf(stderr, "dtc: cannot write %s: %s\n", path ? path : "the output",
			strerror(errno));
		return EXIT_USAGE;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct dt_options opts;
	struct dt_compile_args args = { 0 };
	const char *file = NULL, *program = NULL, *output = NULL;
	bool disassemble = false;
	int i;

	dt_options_init(&opts);
	for (i = 1; i < argc && argv[i][0] == '-' && argv[i][1]; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "-C") || !strcmp(a, "-S")) {
			if (a[1] == 'C')
				args.flags |= DT_COMPILE_CPP;
			else
				disassemble = true;
			continue;
		}
		if (strcmp(a, "-x") && strcmp(a, "-s") && strcmp(a, "-n") && strcmp(a, "-o"))
			usage();
		if (++i == argc)
			usage();
		if (a[1] == 'x' && !set_option(&opts, argv[i]))
			return EXIT_USAGE;
		if (a[1] == 'o')
			output = argv[i];
		if (a[1] == 's')
			file = argv[i];
		if (a[1] == 'n')
			program = argv[i];
		if (file || program)
			break;
	}
	if (!file == !program)
		usage();
	i++;

	size_t len;
	char *source;
	if (file) {
		source = read_file(file, &len);
		if (!source) {
			fprintf(stderr, "dtrace: failed to open %s: %s\n", file, strerror(errno));
			return EXIT_USAGE;
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

	struct dt_program *p = source ? dt_compile_with(source, len, &args) : NULL;
	free(source);
	if (!p) {
		fprintf(stderr, "dtc: out of memory\n");
		return EXIT_USAGE;
	}
	struct dt_object *obj = NULL;
	int rc = 0;
	if (p->nerrors || dt_generate(p, &obj)) {
		print_errors(p, program);
		rc = EXIT_COMPILE_ERRORS;
	} else {
		warn_lowered(p, obj);
		char *text = disassemble ? dt_object_disasm(obj) : dt_object_json(obj);
		if (!text) {
			fprintf(stderr, "dtc: out of memory\n");
			rc = EXIT_USAGE;
		} else {
			rc = write_output(output, text);
			free(text);
		}
	}
	dt_program_free(p);
	return rc;
}
