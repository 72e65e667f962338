// SPDX-License-Identifier: BSD-2-Clause
/*
 * The command line and source handling dcheck and dtc share
 * (dt_driver.h): flags up to -s or -n, which ends them (what follows is
 * the program's macro arguments), -x options set as they come, -K the
 * kernel's symbol list, -p PID the value of $target, and the source read whole from a file or stdin. Tools differ only in their own
 * flags and message texts, which struct dt_tool carries.
 *
 * Invariant: every failure prints one line on stderr; nothing here
 * exits but usage(), which exits with DT_EXIT_USAGE as the tools' usage
 * errors always have.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "dt_driver.h"

static _Noreturn void usage(const struct dt_tool *tool)
{
	fprintf(stderr, "usage: %s\n", tool->usage);
	exit(DT_EXIT_USAGE);
}

char *dt_read_file(const char *path, size_t *len)
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
static bool set_option(struct dt_options *opts, const struct dt_tool *tool, const char *arg)
{
	char err[200], *name = strdup(arg);
	char *eq = name ? strchr(name, '=') : NULL;
	if (eq)
		*eq = '\0';
	bool ok = name && dt_option_set(opts, name, eq ? eq + 1 : NULL, err, sizeof(err)) == 0;
	if (!ok)
		fprintf(stderr, "%s%s: %s\n", tool->option_failed, arg, name ? err : "out of memory");
	free(name);
	return ok;
}

/* Is a (a whole argument) "-X" with X one of letters? */
static bool is_flag(const char *a, const char *letters)
{
	return a[0] == '-' && a[1] && !a[2] && strchr(letters, a[1]);
}

int dt_cmdline_parse(struct dt_cmdline *c, const struct dt_tool *tool, int argc, char **argv)
{
	int i;

	memset(c, 0, sizeof(*c));
	dt_options_init(&c->opts);
	for (i = 1; i < argc && argv[i][0] == '-' && argv[i][1]; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "-C")) {
			c->args.flags |= DT_COMPILE_CPP;
			continue;
		}
		if (!strcmp(a, "-B")) {
			c->args.flags |= DT_COMPILE_BIG_ENDIAN;
			continue;
		}
		if (is_flag(a, tool->flags)) {
			c->flag[(unsigned char)a[1]] = true;
			continue;
		}
		if (!is_flag(a, "xsnKTp") && !is_flag(a, tool->valued))
			usage(tool);
		if (++i == argc)
			usage(tool);
		if (a[1] == 'K') {
			c->ksyms_file = argv[i];
		} else if (a[1] == 'T') {
			c->types_file = argv[i];
		} else if (a[1] == 'p') {
			c->args.target = argv[i];
		} else if (a[1] == 'x') {
			if (!set_option(&c->opts, tool, argv[i]))
				return DT_EXIT_USAGE;
		} else if (a[1] == 's' || a[1] == 'n') {
			*(a[1] == 's' ? &c->file : &c->program) = argv[i];
			break;
		} else {
			c->value[(unsigned char)a[1]] = argv[i];
		}
	}
	if (!c->file == !c->program)
		usage(tool);
	i++;
	c->args.filename = c->file ? c->file : "-n";
	if (c->program)
		c->args.flags |= DT_COMPILE_PROBESPEC;
	c->args.argc = argc - i;
	c->args.argv = (const char *const *)argv + i;
	c->args.options = &c->opts;
	return 0;
}

struct dt_program *dt_cmdline_compile(struct dt_cmdline *c, const struct dt_tool *tool)
{
	size_t len;
	char *source, *ksyms = NULL, *types = NULL;
	if (c->types_file) {
		types = dt_read_file(c->types_file, &len);
		if (!types) {
			fprintf(stderr, "%s%s: %s\n", tool->open_failed, c->types_file, strerror(errno));
			return NULL;
		}
		c->args.types = types;
		c->args.types_len = len;
	}
	if (c->ksyms_file) {
		ksyms = dt_read_file(c->ksyms_file, &len);
		if (!ksyms) {
			fprintf(stderr, "%s%s: %s\n", tool->open_failed, c->ksyms_file, strerror(errno));
			free(types);
			return NULL;
		}
		ksyms[len] = '\0';	/* read_file stops with room to spare */
		c->args.ksyms = ksyms;
	}
	if (c->file) {
		source = dt_read_file(c->file, &len);
		if (!source) {
			fprintf(stderr, "%s%s: %s\n", tool->open_failed, c->file, strerror(errno));
			free(ksyms);
			free(types);
			return NULL;
		}
	} else {
		len = strlen(c->program);
		source = strdup(c->program);
	}
	struct dt_program *p = source ? dt_compile_with(source, len, &c->args) : NULL;
	free(source);
	free(ksyms);		/* the program keeps the addresses it looked up, not the list */
	free(types);		/* and its own copy of the types */
	c->args.ksyms = NULL;
	c->args.types = NULL;
	if (!p)
		fprintf(stderr, "%s: out of memory\n", tool->name);
	return p;
}
