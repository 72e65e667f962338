// SPDX-License-Identifier: BSD-2-Clause
/*
 * `coverage`: start, stop and read a self-removing block coverage run
 * from the shell (scion/coverage.h), for people; `scion coverage` uses
 * the channel's COVERAGE_* ops for the same things.
 */
#include <scion/coverage.h>
#include <scion/shell.h>
#include <scion/printk.h>
#include <scion/string.h>
#include <scion/errno.h>

static void print_stats(void)
{
	struct coverage_stats s;
	coverage_get_stats(&s);
	printk("coverage: %s; %u functions (%u refused), %u blocks: %u hit, %u armed, "
	       "%u missed, %u unprobed; %llu reaps\n", s.running ? "running" : "stopped",
	       s.functions, s.refused, s.blocks, s.hit, s.armed, s.missed, s.unprobed,
	       (unsigned long long)s.reaps);
}

static bool print_block(const struct coverage_block *b, void *arg)
{
	const char *only = arg;
	if (only && strcmp(only, b->function))
		return true;
	printk("  %-32s 0x%llx %4llu bytes  %-8s %llu\n", b->function,
	       (unsigned long long)b->start, (unsigned long long)(b->end - b->start),
	       coverage_state_name(b->state), (unsigned long long)b->hits);
	return true;
}

static int cmd_coverage(int argc, char **argv)
{
	const char *why = "";
	if (argc >= 3 && !strcmp(argv[1], "start")) {
		int n = coverage_start((const char *const *)argv + 2, (unsigned)argc - 2,
				       COVERAGE_REAP_MS, &why);
		if (n < 0) {
			printk("coverage: %s\n", why);
			return n;
		}
		print_stats();
		return 0;
	}
	if (argc == 2 && !strcmp(argv[1], "stop")) {
		if (coverage_stop()) {
			printk("coverage: no coverage run is on\n");
			return -ENOENT;
		}
		print_stats();
		return 0;
	}
	if (argc == 2 && !strcmp(argv[1], "reap")) {
		printk("coverage: %u splices taken out\n", coverage_reap());
		return 0;
	}
	if (argc == 1 || (argc == 2 && !strcmp(argv[1], "status"))) {
		print_stats();
		return 0;
	}
	if ((argc == 2 || argc == 3) && !strcmp(argv[1], "blocks")) {
		coverage_foreach_block(print_block, argc == 3 ? argv[2] : NULL);
		return 0;
	}
	printk("coverage: usage: coverage [status | start GLOB... | stop | reap | "
	       "blocks [FUNCTION]]\n");
	return -EINVAL;
}
SHELL_COMMAND(coverage, "[status | start GLOB... | stop | reap | blocks [FUNCTION]]",
	      "self-removing block coverage of kernel functions (`kernel`: all)", cmd_coverage);
