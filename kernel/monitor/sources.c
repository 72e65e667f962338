// SPDX-License-Identifier: BSD-2-Clause
/*
 * The statistics sources every module publishes (scion/monitor.h): found
 * by name, walked in name order (the table is in link order), and read.
 * The table is read-only after the link; nothing here takes a lock.
 */
#include <scion/monitor.h>
#include <scion/cpu.h>
#include <scion/errno.h>
#include <scion/string.h>
#include <scion/thread.h>

const struct monitor_source *monitor_source_find(const char *name)
{
	LINKER_TABLE_FOREACH(struct monitor_source, monitor_sources, s)
		if (!strcmp(s->name, name))
			return s;
	return NULL;
}

const struct monitor_source *monitor_source_next(const struct monitor_source *prev)
{
	const struct monitor_source *next = NULL;

	LINKER_TABLE_FOREACH(struct monitor_source, monitor_sources, s)
		if ((!prev || strcmp(s->name, prev->name) > 0) &&
		    (!next || strcmp(s->name, next->name) < 0))
			next = s;
	return next;
}

int monitor_read(const struct monitor_source *s, unsigned index, uint64_t *value)
{
	switch (s->scope) {
	case MONITOR_SCOPE_GLOBAL:
		*value = s->read.global();
		return 0;
	case MONITOR_SCOPE_CPU:
		if (index >= cpu_count())
			return -EINVAL;
		*value = s->read.cpu(index);
		return 0;
	default:
		return -EINVAL;
	}
}

struct thread_walk {
	const struct monitor_source *const *sources;
	unsigned nsources;
	struct monitor_thread_row *rows;
	unsigned max, n;
};

/* sched_foreach_thread's visitor: sched_lock and the thread list's lock held. */
static void read_thread(struct thread *t, void *arg)
{
	struct thread_walk *w = arg;
	if (t->is_idle)
		return;		/* a CPU's idle time is cpu.idle: threads add up to cpu.busy */
	if (w->n < w->max) {
		struct monitor_thread_row *r = &w->rows[w->n];
		r->tid = t->tid;
		strlcpy(r->name, t->name, sizeof(r->name));
		for (unsigned i = 0; i < w->nsources; i++)
			r->value[i] = w->sources[i]->read.thread(t);
	}
	w->n++;
}

int monitor_read_threads(const struct monitor_source *const *sources, unsigned nsources,
			 struct monitor_thread_row *rows, unsigned max)
{
	if (nsources > MONITOR_THREAD_SOURCES_MAX)
		return -EINVAL;
	for (unsigned i = 0; i < nsources; i++)
		if (sources[i]->scope != MONITOR_SCOPE_THREAD)
			return -EINVAL;
	struct thread_walk w = { sources, nsources, rows, max, 0 };
	sched_foreach_thread(read_thread, &w);
	return (int)w.n;
}
