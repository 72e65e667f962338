// SPDX-License-Identifier: BSD-2-Clause
/*
 * The core of the exported graft API (grafts/include/graft/graft.h):
 * what a graft may ask about where it runs, and its log line. The
 * transaction calls (graft_abort, graft_lock) live in txn.c, each
 * module's own API beside the module. Nothing here changes kernel state,
 * so nothing is logged for undo.
 */
#include <scion/graft.h>
#include <scion/txn.h>
#include <scion/thread.h>
#include <scion/cpu.h>
#include <scion/printk.h>
#include <arch/cpu.h>
#include "graft_internal.h"

uint64_t graft_cycles(void)
{
	return arch_cycles();
}
GRAFT_EXPORT(graft_cycles);

uint64_t graft_tid(void)
{
	struct thread *t = thread_current();
	return t ? t->tid : 0;
}
GRAFT_EXPORT(graft_tid);

unsigned graft_cpu(void)
{
	return this_cpu_index();
}
GRAFT_EXPORT(graft_cpu);

void graft_log(const char *msg)
{
	struct graft *g = txn_current_graft();
	char line[96];

	txn_copy_graft_string(line, sizeof(line), msg);
	printk("graft '%s': %s\n", g ? g->name : "?", line);
}
GRAFT_EXPORT(graft_log);
