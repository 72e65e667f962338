// SPDX-License-Identifier: BSD-2-Clause
/* Host tests of kernel command line parsing (kernel/core/bootopt.c). */
#include <stdio.h>
#include <string.h>
#include "host_test.h"
#include <scion/bootopt.h>
#include <scion/errno.h>

/* What the parsers saw and what was reported, reset by apply(). */
static struct {
	char calls[1024];	/* "name=value;" per parser call */
	char reports[4096];	/* one report per line */
	int nreports;
} seen;

static void record(const char *name, const char *value)
{
	size_t n = strlen(seen.calls);
	snprintf(seen.calls + n, sizeof(seen.calls) - n, "%s=%s;", name, value);
}

static int parse_smp(const char *v)
{
	record("smp", v);
	if (!*v)
		return -EINVAL;
	for (const char *p = v; *p; p++)
		if (*p < '0' || *p > '9')
			return -EINVAL;
	return strlen(v) > 3 ? -ERANGE : 0;
}

static int parse_quiet(const char *v)
{
	record("quiet", v);
	return 0;
}

static int parse_panic(const char *v)
{
	record("panic", v);
	return !strcmp(v, "halt") || !strcmp(v, "exit") ? 0 : -EINVAL;
}

static int parse_path(const char *v)
{
	record("path", v);
	return 0;
}

static const struct boot_option options[] = {
	{ "smp", "a number of CPUs", "how many CPUs to start", parse_smp },
	{ "quiet", "(no value)", "fewer messages", parse_quiet },
	{ "panic", "halt|exit", "what a panic does last", parse_panic },
	{ "path", "a file name", "where things are", parse_path },
};

static void report(const char *msg)
{
	size_t n = strlen(seen.reports);
	snprintf(seen.reports + n, sizeof(seen.reports) - n, "%s\n", msg);
	seen.nreports++;
}

static int apply(const char *cmdline)
{
	memset(&seen, 0, sizeof(seen));
	return bootopt_apply(cmdline, options, sizeof(options) / sizeof(options[0]), report);
}

static bool has(const char *haystack, const char *needle)
{
	return strstr(haystack, needle) != NULL;
}

HOST_TEST(bootopt_name_value_and_bare_names)
{
	CHECK(t, apply("") == 0 && !seen.calls[0] && !seen.nreports, "empty line");
	CHECK(t, apply("   \t  ") == 0 && !seen.calls[0], "only spaces");
	CHECK(t, apply("smp=4") == 0, "one option");
	CHECK(t, !strcmp(seen.calls, "smp=4;"), "calls: %s", seen.calls);
	CHECK(t, apply("quiet") == 0, "bare name");
	CHECK(t, !strcmp(seen.calls, "quiet=;"), "a bare name passes an empty value: %s", seen.calls);
	CHECK(t, apply("quiet=") == 0 && !strcmp(seen.calls, "quiet=;"), "name= passes empty too");
	CHECK(t, apply("path=a=b") == 0 && !strcmp(seen.calls, "path=a=b;"),
	      "only the first = splits: %s", seen.calls);
	CHECK(t, apply("smp=2 panic=exit quiet") == 0, "three options");
	CHECK(t, !strcmp(seen.calls, "smp=2;panic=exit;quiet=;"), "in order: %s", seen.calls);
	CHECK(t, apply("smp=1 smp=2") == 0 && !strcmp(seen.calls, "smp=1;smp=2;"),
	      "repeated option applied each time: %s", seen.calls);
}

HOST_TEST(bootopt_whitespace_separates_words)
{
	CHECK(t, apply("  smp=2 \t\t panic=halt\t") == 0, "tabs and spaces");
	CHECK(t, !strcmp(seen.calls, "smp=2;panic=halt;"), "calls: %s", seen.calls);
	CHECK(t, apply("\tquiet\r\nsmp=8\n") == 0, "CR and LF separate too");
	CHECK(t, !strcmp(seen.calls, "quiet=;smp=8;"), "calls: %s", seen.calls);
	CHECK(t, apply("smp = 2") == 3, "spaces around = make three words: %s", seen.reports);
}

HOST_TEST(bootopt_unknown_option_reported_once)
{
	CHECK(t, apply("smp=2 frobnicate=7 quiet") == 1, "one problem");
	CHECK(t, seen.nreports == 1, "one report, got %d", seen.nreports);
	CHECK(t, has(seen.reports, "'frobnicate'"), "names the option: %s", seen.reports);
	CHECK(t, !has(seen.reports, "=7"), "names the option, not the value: %s", seen.reports);
	CHECK(t, !strcmp(seen.calls, "smp=2;quiet=;"), "the rest applied: %s", seen.calls);

	CHECK(t, apply("Smp=2") == 1 && has(seen.reports, "'Smp'"), "names are case sensitive");
	CHECK(t, apply("sm") == 1 && apply("smpx=1") == 1, "prefixes and extensions are unknown");
	CHECK(t, apply("=5") == 1 && seen.nreports == 1, "an empty name is unknown");
}

HOST_TEST(bootopt_refused_value_names_errno_and_form)
{
	CHECK(t, apply("panic=maybe smp=4") == 1, "one problem");
	CHECK(t, seen.nreports == 1, "one report");
	CHECK(t, has(seen.reports, "panic"), "names the option: %s", seen.reports);
	CHECK(t, has(seen.reports, "'maybe'"), "quotes the value: %s", seen.reports);
	CHECK(t, has(seen.reports, "EINVAL"), "names the error: %s", seen.reports);
	CHECK(t, has(seen.reports, "halt|exit"), "gives the expected form: %s", seen.reports);
	CHECK(t, !strcmp(seen.calls, "panic=maybe;smp=4;"), "the rest applied: %s", seen.calls);

	CHECK(t, apply("smp=12345") == 1, "a range error");
	CHECK(t, has(seen.reports, "ERANGE") && has(seen.reports, "a number of CPUs"),
	      "ERANGE and the form: %s", seen.reports);
	CHECK(t, apply("smp") == 1 && has(seen.reports, "''"), "missing value: %s", seen.reports);
}

HOST_TEST(bootopt_long_words_reported)
{
	char line[700];

	/* 255 bytes is the longest word that fits. */
	memset(line, 0, sizeof(line));
	memcpy(line, "path=", 5);
	memset(line + 5, 'a', 250);
	CHECK(t, apply(line) == 0 && seen.nreports == 0, "255-byte word: %s", seen.reports);
	CHECK(t, strlen(seen.calls) == strlen("path=;") + 250, "the whole value reached the parser");

	memset(line, 0, sizeof(line));
	memcpy(line, "path=", 5);
	memset(line + 5, 'b', 251);
	CHECK(t, apply(line) == 1 && seen.nreports == 1, "256-byte word refused");
	CHECK(t, !seen.calls[0], "a long word is not applied: %s", seen.calls);
	CHECK(t, has(seen.reports, "longer than 255"), "says why: %s", seen.reports);
	CHECK(t, has(seen.reports, "path=bbb"), "shows the start of the word: %s", seen.reports);
	CHECK(t, strlen(seen.reports) < 160, "the report is short: %zu bytes", strlen(seen.reports));

	/* A long word in the middle; the rest of the line still applies. */
	memset(line, 0, sizeof(line));
	strcpy(line, "smp=2 ");
	memset(line + 6, 'z', 600);
	strcat(line, " quiet");
	CHECK(t, apply(line) == 1, "one problem");
	CHECK(t, !strcmp(seen.calls, "smp=2;quiet=;"), "the rest applied: %s", seen.calls);
}

HOST_TEST(bootopt_control_characters_sanitized_in_messages)
{
	CHECK(t, apply("bad\x1b[2Jname=1") == 1, "unknown option");
	CHECK(t, !has(seen.reports, "\x1b"), "no escape byte in the report");
	CHECK(t, has(seen.reports, "'bad?[2Jname'"), "replaced by ?: %s", seen.reports);

	CHECK(t, apply("panic=\x07\x7f\xff") == 1, "refused");
	CHECK(t, has(seen.reports, "'?" "?" "?'"), "value sanitized: %s", seen.reports);
	for (const char *p = seen.reports; *p; p++)
		CHECK(t, *p == '\n' || (*p >= 0x20 && *p < 0x7f), "byte 0x%02x in a report",
		      (unsigned char)*p);

	char line[400] = "\x01";
	memset(line + 1, 'c', 300);
	CHECK(t, apply(line) == 1 && has(seen.reports, "'?ccc"), "long word sanitized: %s",
	      seen.reports);
}

/* Sanitizing is for messages: a parser receives the value as written. */
HOST_TEST(bootopt_values_reach_parsers_unchanged)
{
	CHECK(t, apply("path=/boot/caf\xc3\xa9.img") == 0, "UTF-8 value accepted");
	CHECK(t, !strcmp(seen.calls, "path=/boot/caf\xc3\xa9.img;"), "parser saw %s", seen.calls);
}

HOST_TEST(bootopt_return_value_counts_problems)
{
	CHECK(t, apply("nope1 smp=x nope2 panic=halt smp=9999 quiet") == 4, "four problems");
	CHECK(t, seen.nreports == 4, "four reports, got %d", seen.nreports);
	CHECK(t, !strcmp(seen.calls, "smp=x;panic=halt;smp=9999;quiet=;"), "calls: %s", seen.calls);
	CHECK(t, bootopt_apply("quiet", options, 0, report) == 1, "an empty table knows nothing");
}
