/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Boot options: `name=value` words on the kernel command line. Each
 * option registers itself in a linker table with a parser:
 *
 *   BOOT_OPTION(panic, "halt|exit", "what a panic does last", parse_panic);
 *
 * An unknown option, a missing value or one the parser refuses is
 * reported on the console; the rest of the line is still applied.
 */
#ifndef SCION_BOOTOPT_H
#define SCION_BOOTOPT_H

#include <scion/compiler.h>

struct boot_option {
	const char *name;
	const char *values;	/* what the value looks like, for messages */
	const char *help;
	/* Return value: 0, or a negative errno after which the option is reported as refused. */
	int (*parse)(const char *value);
};

LINKER_TABLE_DECLARE(struct boot_option, boot_options);

#define BOOT_OPTION(oname, ovalues, ohelp, oparse) \
	static const struct boot_option UNIQUE(boot_option_) LINKER_TABLE_ENTRY(boot_options) = { \
		.name = #oname, .values = ovalues, .help = ohelp, .parse = oparse, \
	}

/*
 * bootopt_apply - parse cmdline against the options[0..n-1] table.
 * report(msg) receives one line per problem.
 * Return value: the number of problems.
 */
int bootopt_apply(const char *cmdline, const struct boot_option *options, size_t n,
		  void (*report)(const char *msg));

#endif
