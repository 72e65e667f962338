// SPDX-License-Identifier: BSD-2-Clause
/*
 * dcheck: compile a D program with the front end and print the checked
 * AST (dt_program_dump) or the errors, one per line. For trying the
 * compiler by hand and for scripts; exits 0 when the program compiles,
 * 1 when it has errors, 2 on a usage or I/O problem.
 *
 *   dcheck [-C] [-K SYMBOLS] [-T TYPES [-B]] [-d] [-x name[=value]]... -s FILE [args...]
 *   dcheck [-C] [-K SYMBOLS] [-T TYPES [-B]] [-d] [-x name[=value]]... -n 'PROGRAM' [args...]
 *
 * -C runs the C preprocessor first, -K names the kernel's symbol list
 * (for `name references; see dtc), -d prints errors as dtrace does
 * (default: FILE:LINE:COLUMN: D_TAG: message), args are $1, $2, ...
 * The command line and reading the source are dt_driver.c's.
 */
#include <stdio.h>
#include <stdlib.h>
#include "dt_driver.h"

static const struct dt_tool dcheck = {
	.name = "dcheck",
	.usage = "dcheck [-C] [-K SYMBOLS] [-T TYPES [-B]] [-d] [-x name[=value]]... (-s FILE | -n PROGRAM) "
		 "[args...]",
	.flags = "d",
	.valued = "",
	.option_failed = "dcheck: -x ",
	.open_failed = "dcheck: cannot read ",
};

int main(int argc, char **argv)
{
	struct dt_cmdline c;
	if (dt_cmdline_parse(&c, &dcheck, argc, argv))
		return DT_EXIT_USAGE;
	enum dt_error_style style = c.flag['d'] ? DT_ERRFMT_DTRACE : DT_ERRFMT_TAGGED;
	struct dt_program *p = dt_cmdline_compile(&c, &dcheck);
	if (!p)
		return DT_EXIT_USAGE;
	int rc = 0;
	if (p->nerrors) {
		for (int e = 0; e < p->nerrors; e++) {
			char line[1024];
			dt_error_format(&p->errors[e], style, line, sizeof(line));
			puts(line);
		}
		rc = DT_EXIT_COMPILE_ERRORS;
	} else {
		char *dump = dt_program_dump(p);
		if (!dump) {
			fprintf(stderr, "dcheck: out of memory\n");
			rc = DT_EXIT_USAGE;
		} else {
			fputs(dump, stdout);
			free(dump);
		}
	}
	dt_program_free(p);
	return rc;
}
