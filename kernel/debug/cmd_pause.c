// SPDX-License-Identifier: BSD-2-Clause
/*
 * `pause`: the threads D's pause() stopped (scion/pause.h): list them,
 * show a paused thread's registers or stack, resume one or all, or let
 * one run one instruction (step, kernel/debug/step.c). For people;
 * `scion thread TID regs|stack|continue|step` runs these.
 */
#include <scion/pause.h>
#include <scion/shell.h>
#include <scion/printk.h>
#include <scion/symtab.h>
#include <scion/string.h>
#include <scion/clock.h>
#include <scion/errno.h>
#include <arch/trap.h>

static void list_one(const struct paused_thread_info *p, void *arg)
{
	char where[96];
	unsigned *n = arg;
	if (!(*n)++)
		printk("  %-6s %-24s %-40s %s\n", "TID", "NAME", "PAUSED AT", "FOR");
	printk("  %-6llu %-24s %-40s %llu ms\n", (unsigned long long)p->tid, p->name,
	       ksym_format(p->addr, where, sizeof(where)),
	       (unsigned long long)((clock_ns() - p->since_ns) / 1000000));
}

static void print_list(void)
{
	struct pause_stats s;
	unsigned n = 0;
	char where[96];

	pause_foreach(list_one, &n);
	pause_get_stats(&s);
	printk("pause: %u paused now, %llu so far; %llu hits not paused", n,
	       (unsigned long long)s.paused, (unsigned long long)s.refused);
	if (s.last_refused_why)
		printk(" (last at %s: %s)", ksym_format(s.last_refused_addr, where, sizeof(where)),
		       s.last_refused_why);
	printk("\n");
}

static void print_regs(const struct trap_frame *f, void *arg)
{
	(void)arg;
	arch_trap_print_regs(f);
}

static void print_stack(const struct paused_thread_info *p, void *arg)
{
	char where[96];
	if (p->tid != *(uint64_t *)arg)
		return;
	*(uint64_t *)arg = 0;
	for (unsigned i = 0; i < p->nstack; i++)
		printk("  %s\n", ksym_format(p->stack[i], where, sizeof(where)));
}

/* `pause step TID`: one line, where it went or why it did not. */
static int step(uint64_t tid)
{
	char where[96];
	const char *why = NULL;
	uint64_t to = 0;
	unsigned ran = 0;
	int err = pause_step(tid, &to, &ran, &why);

	if (err) {
		printk("pause: thread %llu cannot step: %s\n", (unsigned long long)tid, why);
		return err;
	}
	ksym_format(to, where, sizeof(where));
	if (ran > 1)
		printk("pause: thread %llu stepped to %s (%u instructions: its probe's jump "
		       "covers them)\n", (unsigned long long)tid, where, ran);
	else
		printk("pause: thread %llu stepped to %s\n", (unsigned long long)tid, where);
	return 0;
}

static int cmd_pause(int argc, char **argv)
{
	uint64_t tid = 0;
	if (argc == 1 || (argc == 2 && !strcmp(argv[1], "list"))) {
		print_list();
		return 0;
	}
	if (argc == 3 && !strcmp(argv[1], "continue") && !strcmp(argv[2], "all")) {
		printk("pause: %u threads resumed\n", pause_continue(0));
		return 0;
	}
	if (argc != 3 || parse_u64(argv[2], &tid, false) || !tid) {
		printk("pause: usage: pause [list | regs TID | stack TID | step TID | "
		       "continue TID|all]\n");
		return -EINVAL;
	}
	if (!strcmp(argv[1], "continue")) {
		if (!pause_continue(tid)) {
			printk("pause: thread %llu is not paused\n", (unsigned long long)tid);
			return -ENOENT;
		}
		printk("pause: thread %llu resumed\n", (unsigned long long)tid);
		return 0;
	}
	if (!strcmp(argv[1], "step"))
		return step(tid);
	if (!strcmp(argv[1], "stack")) {
		uint64_t want = tid;
		pause_foreach(print_stack, &want);
		if (!want)
			return 0;
		printk("pause: thread %llu is not paused\n", (unsigned long long)tid);
		return -ENOENT;
	}
	if (strcmp(argv[1], "regs")) {
		printk("pause: no such subcommand %s (list, regs, stack, step, continue)\n",
		       argv[1]);
		return -EINVAL;
	}
	if (pause_with_frame(tid, print_regs, NULL)) {
		printk("pause: thread %llu is not paused\n", (unsigned long long)tid);
		return -ENOENT;
	}
	return 0;
}
SHELL_COMMAND(pause, "[list | regs TID | stack TID | step TID | continue TID|all]",
	      "threads paused by D's pause(): list, registers, stack, one step, resume",
	      cmd_pause);
