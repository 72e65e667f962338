// SPDX-License-Identifier: BSD-2-Clause
/* libFuzzer target: an arbitrary kernel command line through bootopt_apply. */
#include <string.h>
#include "fuzz.h"
#include <scion/bootopt.h>
#include <scion/errno.h>

static int reports;

/* Accepts digits, refuses the rest: both paths of the apply loop. */
static int parse_number(const char *v)
{
	FUZZ_ASSERT(strlen(v) < 256, "value of %zu bytes reached a parser", strlen(v));
	for (; *v; v++)
		if (*v < '0' || *v > '9')
			return -EINVAL;
	return 0;
}

static int parse_any(const char *v)
{
	FUZZ_ASSERT(strlen(v) < 256, "value of %zu bytes reached a parser", strlen(v));
	return 0;
}

static int parse_never(const char *v)
{
	(void)v;
	return -ERANGE;
}

static const struct boot_option options[] = {
	{ "smp", "a number", "CPUs", parse_number },
	{ "quiet", "(nothing)", "fewer messages", parse_any },
	{ "x", "anything", "short name", parse_any },
	{ "never", "nothing will do", "always refused", parse_never },
};

/* Reports go to the console: printable, bounded, one line. */
static void report(const char *msg)
{
	size_t n = strlen(msg);
	FUZZ_ASSERT(n > 0 && n < 600, "report of %zu bytes", n);
	for (size_t i = 0; i < n; i++)
		FUZZ_ASSERT((unsigned char)msg[i] >= 0x20 && (unsigned char)msg[i] < 0x7f,
			    "byte 0x%02x in a report", (unsigned char)msg[i]);
	reports++;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *line = malloc(size + 1);
	if (!line)
		return 0;
	memcpy(line, data, size);
	line[size] = '\0';
	reports = 0;
	int problems = bootopt_apply(line, options, sizeof(options) / sizeof(options[0]), report);
	FUZZ_ASSERT(problems == reports, "returned %d, reported %d", problems, reports);
	free(line);
	return 0;
}
