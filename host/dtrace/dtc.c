// SPDX-License-Identifier: BSD-2-Clause
/*
 * dtc: compile a D program into the trace object the kernel loads and
 * describe it for the host consumer as one JSON document (dt_json.c has
 * its layout): the object's bytes, the options, the aggregations, and
 * each clause's record layout and actions.
 *
 *   dtc [-C] [-K SYMBOLS] [-T TYPES [-B]] [-S] [-p PID] [-x name[=value]]... [-o FILE]
 *       (-s FILE | -n PROGRAM) [args...]
 *   dtc -K SYMBOLS -T TYPES [-B] -A (-s FILE | -n PROBES)
 *
 * -C runs the C preprocessor first, -K names the kernel's symbol list
 * (`nm --defined-only` of it: build/kernel.syms) for `name references,
 * -T its types (build/kernel.ctf, CTF) for typed curthread, args[] and
 * `name, -B says that kernel is big-endian (where bit-fields lie),
 * -S prints the generated programs disassembled instead of the JSON, -p
 * PID is the value of the macro variable $target (the traced process), -x
 * sets an option, -o writes to FILE instead of stdout, args are the
 * macro arguments $1, $2...
 * -A reads no program: FILE or PROBES lists probes, one
 * provider:module:function:name a line (as the kernel lists them), and
 * dtc prints each one's argument types (`scion trace -l -v`), one JSON
 * object a line: {"probe": "sched:kernel:f:on-cpu", "args": ["uint64_t",
 * ...]}, "args" null where the kernel's types say nothing of the probe.
 * Errors go to stderr as dtrace prints them, one per line:
 *   dtrace: failed to compile script FILE: line N: MESSAGE      (-s)
 *   dtrace: invalid probe specifier PROGRAM: MESSAGE             (-n)
 *   dtrace: could not enable tracing: Destructive actions not allowed
 *                                     (chill, raise, panic, breakpoint, stop without -w)
 * Sizes past the kernel's maximum are lowered (bufresize=auto) with a line
 * such as "dtrace: aggregation size lowered to 1m" on stderr.
 * Exit status: 0 compiled, 1 compile errors, 2 usage, option or I/O problem.
 * The command line and reading the source are dt_driver.c's.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "dt_driver.h"

static const struct dt_tool dtc = {
	.name = "dtc",
	.usage = "dtc [-C] [-K SYMBOLS] [-T TYPES [-B]] [-S|-A] [-p PID] [-x name[=value]]... "
		 "[-o FILE] (-s FILE | -n PROGRAM) [args...]",
	.flags = "SA",
	.valued = "o",
	.option_failed = "dtrace: failed to set -x ",
	.open_failed = "dtrace: failed to open ",
};

static void print_errors(const struct dt_program *p, const char *program_text)
{
	for (int e = 0; e < p->nerrors; e++) {
		char line[1024];
		if (p->errors[e].tag == D_DESTRUCTIVE)	/* dtrace's words when it enables */
			snprintf(line, sizeof(line), "dtrace: could not enable tracing: Destructive "
				 "actions not allowed");
		else if (program_text)
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
		return DT_EXIT_USAGE;
	}
	bool ok = fputs(text, f) >= 0;
	ok = (f == stdout ? fflush(f) == 0 : fclose(f) == 0) && ok;
	if (!ok) {
		fprintf(stderr, "dtc: cannot write %s: %s\n", path ? path : "the output",
			strerror(errno));
		return DT_EXIT_USAGE;
	}
	return 0;
}

static void json_string(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++)
		if (*s == '"' || *s == '\\')
			fprintf(f, "\\%c", *s);
		else if ((unsigned char)*s < 0x20)
			fprintf(f, "\\u%04x", *s);
		else
			fputc(*s, f);
	fputc('"', f);
}

/* -A: the argument types of each probe the list (malloc'd, consumed) names. */
static int print_probe_args(struct dt_cmdline *c, char *list)
{
	c->file = NULL;
	c->program = "BEGIN { }";	/* a program only to hold the kernel's types */
	struct dt_program *p = dt_cmdline_compile(c, &dtc);
	if (!p) {
		free(list);
		return DT_EXIT_USAGE;
	}
	int rc = 0;
	if (p->nerrors) {
		print_errors(p, NULL);
		rc = DT_EXIT_USAGE;
	}
	FILE *out = c->value['o'] ? fopen(c->value['o'], "w") : stdout;
	if (!out) {
		fprintf(stderr, "dtc: cannot write %s: %s\n", c->value['o'], strerror(errno));
		rc = DT_EXIT_USAGE;
	}
	for (char *line = list, *next; !rc && line && *line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		if (!*line)
			continue;
		char types[6][128];
		int n = dt_program_probe_args(p, line, types, 6);
		fputs("{\"probe\": ", out);
		json_string(out, line);
		fputs(", \"args\": ", out);
		if (n < 0)
			fputs("null", out);
		for (int i = 0; i < n; i++) {
			fputs(i ? ", " : "[", out);
			json_string(out, types[i]);
		}
		fputs(n == 0 ? "[]}\n" : n > 0 ? "]}\n" : "}\n", out);
	}
	if (out && (out == stdout ? fflush(out) : fclose(out)) != 0 && !rc) {
		fprintf(stderr, "dtc: cannot write the output: %s\n", strerror(errno));
		rc = DT_EXIT_USAGE;
	}
	free(list);
	dt_program_free(p);
	return rc;
}

int main(int argc, char **argv)
{
	struct dt_cmdline c;
	if (dt_cmdline_parse(&c, &dtc, argc, argv))
		return DT_EXIT_USAGE;
	if (c.flag['A']) {
		size_t len = 0;
		char *list = c.file ? dt_read_file(c.file, &len) : strdup(c.program);
		if (!list) {
			fprintf(stderr, "%s%s: %s\n", dtc.open_failed, c.file ? c.file : "-n",
				strerror(errno));
			return DT_EXIT_USAGE;
		}
		if (c.file)
			list[len] = '\0';
		return print_probe_args(&c, list);
	}
	bool disassemble = c.flag['S'];
	const char *output = c.value['o'], *program = c.program;
	struct dt_program *p = dt_cmdline_compile(&c, &dtc);
	if (!p)
		return DT_EXIT_USAGE;
	struct dt_object *obj = NULL;
	int rc = 0;
	if (p->nerrors || dt_generate(p, &obj)) {
		print_errors(p, program);
		rc = DT_EXIT_COMPILE_ERRORS;
	} else {
		warn_lowered(p, obj);
		char *text = disassemble ? dt_object_disasm(obj) : dt_object_json(obj);
		if (!text) {
			fprintf(stderr, "dtc: out of memory\n");
			rc = DT_EXIT_USAGE;
		} else {
			rc = write_output(output, text);
			free(text);
		}
	}
	dt_program_free(p);
	return rc;
}
