// SPDX-License-Identifier: BSD-2-Clause
/*
 * The kernel command line: whitespace-separated words `name=value` (or a
 * bare `name`, which passes an empty value), matched against the table
 * of registered options. Pure code: also built for the host tests.
 */
#include <scion/bootopt.h>
#include <scion/string.h>
#include <scion/format.h>
#include <scion/errno.h>

#define WORD_MAX 256

static const struct boot_option *find(const struct boot_option *options, size_t n,
				      const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(options[i].name, name))
			return &options[i];
	return NULL;
}

static bool is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/* Printable form of a word for messages: control bytes become '?'. */
static void sanitize(char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || (unsigned char)*s >= 0x7f)
			*s = '?';
}

int bootopt_apply(const char *cmdline, const struct boot_option *options, size_t n,
		  void (*report)(const char *msg))
{
	char word[WORD_MAX], msg[WORD_MAX + 160];
	int problems = 0;
	const char *p = cmdline;

	for (;;) {
		while (is_space(*p))
			p++;
		if (!*p)
			break;
		size_t len = 0;
		bool too_long = false;
		while (*p && !is_space(*p)) {
			if (len + 1 < sizeof(word))
				word[len++] = *p;
			else
				too_long = true;
			p++;
		}
		word[len] = '\0';
		/*
		 * Only messages get the sanitized form: a parser receives the
		 * value as written (a file name may well be UTF-8).
		 */
		if (too_long) {
			sanitize(word);
			snprintf(msg, sizeof(msg), "boot: option '%.40s...' is longer than %d bytes; ignored",
				 word, WORD_MAX - 1);
			report(msg);
			problems++;
			continue;
		}
		char *eq = strchr(word, '=');
		const char *value = "";
		if (eq) {
			*eq = '\0';
			value = eq + 1;
		}
		const struct boot_option *o = find(options, n, word);
		if (!o) {
			sanitize(word);
			snprintf(msg, sizeof(msg), "boot: unknown option '%s' ignored (see `bootopts` in the shell)",
				 word);
			report(msg);
			problems++;
			continue;
		}
		int err = o->parse(value);
		if (err) {
			if (eq)
				sanitize(eq + 1);	/* the name matched a table entry */
			snprintf(msg, sizeof(msg), "boot: option %s: value '%s' refused (%s); expected %s",
				 o->name, value, errno_name(err), o->values);
			report(msg);
			problems++;
		}
	}
	return problems;
}
