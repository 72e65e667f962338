// SPDX-License-Identifier: BSD-2-Clause
/*
 * The graft provider: three probes per graft point, named after the
 * point "object.method" as graft:object:method:NAME —
 *   invoke  a graft is about to run; arg0..arg5 the invocation's arguments
 *   commit  its transaction committed; arg0 the result, arg1..arg5 the
 *           first five arguments
 *   abort   its transaction aborted (the default runs instead);
 *           arg0..arg5 the arguments
 * They fire in the point's dispatcher, which runs only while a graft is
 * installed, so an ungrafted point costs nothing more than before.
 */
#include <scion/graft.h>
#include <scion/probe.h>
#include <scion/string.h>
#include <scion/printk.h>

static void graft_provide(void)
{
	LINKER_TABLE_FOREACH(struct graft_point, graft_points, p) {
		char object[GRAFT_NAME_MAX];
		const char *dot = strchr(p->name, '.');
		const char *method = dot ? dot + 1 : p->name;
		size_t len = dot ? (size_t)(dot - p->name) : 0;
		if (len >= sizeof(object))
			len = sizeof(object) - 1;
		memcpy(object, p->name, len);
		object[len] = '\0';
		struct graft_point_state *st = p->state;
		st->probe_invoke = probe_create_soft("graft", object, method, "invoke", false);
		st->probe_commit = probe_create_soft("graft", object, method, "commit", false);
		st->probe_abort = probe_create_soft("graft", object, method, "abort", false);
		if (!st->probe_invoke || !st->probe_commit || !st->probe_abort) {
			printk("graft provider: out of memory at %s\n", p->name);
			continue;
		}
		st->probe_invoke->soft->also_live = &st->probes_live;
		st->probe_commit->soft->also_live = &st->probes_live;
		st->probe_abort->soft->also_live = &st->probes_live;
	}
}
PROBE_PROVIDER(graft_provider, "graft", graft_provide, NULL);
