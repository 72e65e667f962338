// SPDX-License-Identifier: BSD-2-Clause
/*
 * Shell: `codeadapt` lists and removes code adaptations
 * (scion/codeadapt.h); the ways of building one add their own
 * subcommands through the codeadapt_cmds table:
 *   codeadapt [list]          every adaptation: id, kind, function, guard,
 *                             version, calls taken, state
 *   codeadapt remove ID|all   take splices out (text restored)
 *   codeadapt collect         release drained versions now
 * Every bad input gets one line starting "codeadapt:" and changes nothing.
 */
#include <scion/codeadapt.h>
#include <scion/shell.h>
#include <scion/printk.h>
#include <scion/string.h>
#include <scion/format.h>
#include <scion/errno.h>

static void format_guard(const struct codeadapt_info *a, char *buf, size_t size)
{
	size_t n = 0;

	if (a->arg >= 0)
		n += snprintf(buf + n, size - n, "arg%d%s == %lld", a->arg,
			      a->arg_bytes == 4 ? "/32" : "", (long long)a->value);
	if (a->pid)
		snprintf(buf + n, size - n, "%spid %d", n ? " && " : "", a->pid);
	else if (a->tid)
		snprintf(buf + n, size - n, "%sthread %llu", n ? " && " : "",
			 (unsigned long long)a->tid);
	if (a->arg < 0 && !a->tid && !a->pid)
		snprintf(buf, size, "always");
}

static bool print_one(const struct codeadapt_info *a, void *arg)
{
	char guard[64];
	unsigned *n = arg;

	format_guard(a, guard, sizeof(guard));
	printk("%4u %-10s %-24s if %-22s -> 0x%llx (%llu bytes, %s) taken %llu%s\n", a->id,
	       codeadapt_kind_name(a->kind), a->function, guard, (unsigned long long)a->version,
	       (unsigned long long)a->version_size, a->source, (unsigned long long)a->taken,
	       a->state == CODEADAPT_DRAINING ? " draining" : "");
	++*n;
	return true;
}

static int cmd_list(void)
{
	unsigned n = 0;

	printk("  id kind       function                 guard                       version\n");
	codeadapt_foreach(print_one, &n);
	printk("codeadapt: %u adaptation%s\n", n, n == 1 ? "" : "s");
	return 0;
}

static int cmd_remove(const char *what)
{
	uint64_t id;

	if (!strcmp(what, "all")) {
		unsigned n = codeadapt_remove_all();
		printk("codeadapt: %u removed\n", n);
		return 0;
	}
	if (parse_u64(what, &id, false) || !id || id > UINT32_MAX) {
		printk("codeadapt: '%s' is not an adaptation id\n", what);
		return -EINVAL;
	}
	if (codeadapt_remove((uint32_t)id)) {
		printk("codeadapt: no adaptation %llu is installed\n", (unsigned long long)id);
		return -ENOENT;
	}
	printk("codeadapt: %llu removed\n", (unsigned long long)id);
	return 0;
}

static void usage(void)
{
	printk("codeadapt: usage: codeadapt [list] | remove ID|all | collect");
	LINKER_TABLE_FOREACH(struct codeadapt_cmd, codeadapt_cmds, c)
		printk(" | %s %s", c->name, c->usage);
	printk("\n");
}

static int cmd_codeadapt(int argc, char **argv)
{
	if (argc == 1 || (argc == 2 && !strcmp(argv[1], "list")))
		return cmd_list();
	if (argc == 3 && !strcmp(argv[1], "remove"))
		return cmd_remove(argv[2]);
	if (argc == 2 && !strcmp(argv[1], "collect")) {
		unsigned left = codeadapt_collect();
		printk("codeadapt: %u still draining\n", left);
		return 0;
	}
	LINKER_TABLE_FOREACH(struct codeadapt_cmd, codeadapt_cmds, c)
		if (!strcmp(argv[1], c->name))
			return c->fn(argc - 1, argv + 1);
	usage();
	return -EINVAL;
}
SHELL_COMMAND(codeadapt, "[list] | remove ID|all | collect | SUBCOMMAND ...",
	      "code adaptations: versions of kernel functions behind entry splices", cmd_codeadapt);
