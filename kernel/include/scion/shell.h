/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Shell commands. Each command is an entry in a linker table, so a file
 * that implements a command registers it itself:
 *
 *   SHELL_COMMAND(uptime, "", "time since boot", cmd_uptime);
 *
 * A command returns 0 on success or a negative errno after printing a
 * one-line error that starts with its name.
 */
#ifndef SCION_SHELL_H
#define SCION_SHELL_H

#include <scion/compiler.h>

#define SHELL_MAX_ARGS 16

struct shell_cmd {
	const char *name;
	const char *usage;	/* arguments, e.g. "<glob>" */
	const char *help;	/* one line */
	int (*fn)(int argc, char **argv);
};

LINKER_TABLE_DECLARE(struct shell_cmd, shell_cmds);

#define SHELL_COMMAND(cname, cusage, chelp, cfn) \
	static const struct shell_cmd UNIQUE(shell_cmd_) LINKER_TABLE_ENTRY(shell_cmds) = { \
		.name = #cname, .usage = cusage, .help = chelp, .fn = cfn, \
	}

/* Run the interactive shell on the console; never returns. */
__noreturn void shell_main(void *arg);

/*
 * shell_execute - split line into words and run the command.
 * Return value: the command's result, -ENOENT for an unknown command,
 *   -E2BIG for too many words, 0 for an empty line.
 */
int shell_execute(char *line);

/*
 * shell_run - run a command already split into words (argv[argc] NULL):
 *   a command that runs another (`channel held CMD`).
 * Return value: as shell_execute's.
 */
int shell_run(int argc, char **argv);

/* Cycle counter when the shell first printed its prompt (0 before). */
extern uint64_t shell_first_prompt_cycles;

#endif
