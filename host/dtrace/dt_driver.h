/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * dt_driver.h - what the D command-line tools (dcheck, dtc) share: their
 * common command line,
 *   TOOL [-C] [-K SYMBOLS] [-T TYPES [-B]] [own flags]... [-x name[=value]]... (-s FILE | -n PROGRAM) [args...]
 * read into compile arguments, and the source read and compiled.
 * Each tool names its own flags, messages and usage line in a struct
 * dt_tool; what it does with the compiled program stays its own.
 */
#ifndef SCION_DT_DRIVER_H
#define SCION_DT_DRIVER_H

#include "dtrace.h"

#define DT_EXIT_COMPILE_ERRORS 1
#define DT_EXIT_USAGE 2

struct dt_tool {
	const char *name;		/* "dcheck": prefixes its own messages */
	const char *usage;		/* the usage line after "usage: " */
	const char *flags;		/* its own flags without a value ("d" for -d) */
	const char *valued;		/* its own flags taking a value ("o" for -o FILE) */
	const char *option_failed;	/* before "ARG: why" when -x ARG is refused */
	const char *open_failed;	/* before "FILE: strerror" when -s FILE does not read */
};

/* The command line once parsed. */
struct dt_cmdline {
	struct dt_options opts;
	struct dt_compile_args args;	/* filename, flags, $1.. and options, for dt_compile_with */
	const char *file;		/* -s FILE, or NULL */
	const char *program;		/* -n PROGRAM, or NULL */
	const char *ksyms_file;		/* -K SYMBOLS: the kernel's `nm` list, or NULL */
	const char *types_file;		/* -T TYPES: the kernel's CTF (kernel.ctf), or NULL */
	bool flag[128];			/* the tool's own flags seen, by letter */
	const char *value[128];		/* the tool's own valued flags, by letter (last wins) */
};

/*
 * dt_cmdline_parse - read argv into c: -C, the tool's own flags, -x
 *   options, then -s FILE or -n PROGRAM and the macro arguments after it.
 * Return value: 0; or DT_EXIT_USAGE after printing the usage line or
 *   why an option was refused, on stderr.
 */
int dt_cmdline_parse(struct dt_cmdline *c, const struct dt_tool *tool, int argc, char **argv);

/*
 * dt_cmdline_compile - read the source (the file, "-" for stdin, or the
 *   -n text) and compile it with c's arguments.
 * Return value: the program (check its nerrors; free it with
 *   dt_program_free), or NULL after printing why (unreadable file, out
 *   of memory) on stderr.
 */
struct dt_program *dt_cmdline_compile(struct dt_cmdline *c, const struct dt_tool *tool);

/*
 * dt_read_file - the whole of path ("-": stdin), malloc'd with at least
 *   one spare byte after its *len bytes.
 * Return value: the bytes, or NULL with errno set.
 */
char *dt_read_file(const char *path, size_t *len);

#endif
