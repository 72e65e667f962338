// SPDX-License-Identifier: BSD-2-Clause
/*
 * The interactive shell on the console: reads lines through the line
 * editor, splits them into words and runs the command registered under
 * the first word (commands come from the shell_cmds linker table).
 * Errors are one line each and the shell always goes on.
 */
#include <scion/sdt.h>
#include <scion/shell.h>
#include <scion/console.h>
#include <scion/printk.h>
#include <scion/string.h>
#include <scion/errno.h>
#include <scion/format.h>
#include <arch/cpu.h>
#include "lineedit.h"

#define HISTORY 16
#define PROMPT "scion> "

uint64_t shell_first_prompt_cycles;

static char history[HISTORY][LINE_MAX];	/* shell thread only */
static unsigned history_count;

static void echo_console(const char *s, size_t n, void *ctx)
{
	(void)ctx;
	console_write(s, n);
}

static const struct shell_cmd *find_command(const char *name)
{
	LINKER_TABLE_FOREACH(struct shell_cmd, shell_cmds, c)
		if (!strcmp(c->name, name))
			return c;
	return NULL;
}

/* Split line in place into words; '...' and "..." group words with spaces. */
static int split_words(char *line, char **argv, int max)
{
	int argc = 0;
	char *p = line;

	for (;;) {
		while (*p == ' ' || *p == '\t')
			p++;
		if (!*p)
			return argc;
		if (argc == max)
			return -E2BIG;
		char quote = (*p == '\'' || *p == '"') ? *p++ : 0;
		argv[argc++] = p;
		while (*p && (quote ? *p != quote : (*p != ' ' && *p != '\t')))
			p++;
		if (quote && !*p)
			return -EINVAL;
		if (*p)
			*p++ = '\0';
	}
}

int shell_execute(char *line)
{
	char *argv[SHELL_MAX_ARGS + 1];
	int argc = split_words(line, argv, SHELL_MAX_ARGS);

	if (argc == -E2BIG) {
		printk("scion: too many words (at most %d)\n", SHELL_MAX_ARGS);
		return argc;
	}
	if (argc == -EINVAL) {
		printk("scion: unterminated quote\n");
		return argc;
	}
	if (argc == 0)
		return 0;
	argv[argc] = NULL;
	return shell_run(argc, argv);
}

int shell_run(int argc, char **argv)
{
	const struct shell_cmd *c = find_command(argv[0]);
	if (!c) {
		printk("scion: unknown command '%s'; type 'help' for the list\n", argv[0]);
		return -ENOENT;
	}
	SDT_PROBE2(shell__command, argv[0], argc);
	return c->fn(argc, argv);
}

static void remember(const char *line)
{
	if (!line[0])
		return;
	if (history_count && !strcmp(history[(history_count - 1) % HISTORY], line))
		return;
	strlcpy(history[history_count % HISTORY], line, LINE_MAX);
	history_count++;
}

void shell_main(void *arg)
{
	struct line_editor le;
	unsigned recall = 0;	/* how far back the arrows have gone */
	char line[LINE_MAX];

	(void)arg;
	le_init(&le, echo_console, NULL);
	printk("Scion shell. Type 'help' for commands.\n");
	for (;;) {
		if (!shell_first_prompt_cycles)
			shell_first_prompt_cycles = arch_cycles();
		printk(PROMPT);
		recall = 0;
		for (;;) {
			enum le_event ev = le_feed(&le, console_getc());
			if (ev == LE_NONE)
				continue;
			if (ev == LE_HISTORY_PREV || ev == LE_HISTORY_NEXT) {
				unsigned available = MIN(history_count, (unsigned)HISTORY);
				if (ev == LE_HISTORY_PREV && recall < available)
					recall++;
				else if (ev == LE_HISTORY_NEXT && recall > 0)
					recall--;
				le_replace(&le, recall ? history[(history_count - recall) % HISTORY] : "");
				continue;
			}
			if (ev == LE_OVERFLOW)
				printk("scion: line longer than %d characters discarded\n", LINE_MAX - 1);
			if (ev == LE_LINE) {
				strlcpy(line, le.buf, sizeof(line));
				remember(line);
				shell_execute(line);
			}
			break;
		}
	}
}

static int cmd_help(int argc, char **argv)
{
	if (argc > 2) {
		printk("help: usage: help [command]\n");
		return -EINVAL;
	}
	if (argc == 2) {
		const struct shell_cmd *c = find_command(argv[1]);
		if (!c) {
			printk("help: no command '%s'\n", argv[1]);
			return -ENOENT;
		}
		printk("%s %s\n  %s\n", c->name, c->usage, c->help);
		return 0;
	}
	/* Alphabetical: the table is in link order. */
	const char *last = "";
	for (size_t shown = 0; shown < LINKER_TABLE_COUNT(shell_cmds); shown++) {
		const struct shell_cmd *next = NULL;
		LINKER_TABLE_FOREACH(struct shell_cmd, shell_cmds, c)
			if (strcmp(c->name, last) > 0 && (!next || strcmp(c->name, next->name) < 0))
				next = c;
		if (!next)
			break;
		char head[48];
		snprintf(head, sizeof(head), "%s %s", next->name, next->usage);
		printk("  %-22s %s\n", head, next->help);
		last = next->name;
	}
	return 0;
}
SHELL_COMMAND(help, "[command]", "list commands, or describe one", cmd_help);
