// SPDX-License-Identifier: BSD-2-Clause
/*
 * The statistics sources every module publishes (scion/monitor.h): found
 * by name, walked in name order (the table is in link order), and read:
 * per thread over the scheduler's thread list, per process over the
 * process table (proc_foreach_monitor), where a process's value is its
 * live threads' plus the share its exited threads left in it
 * (monitor_thread_leaves, at a thread's exit).
 *
 * The table is read-only after the link. Lock order: proc_lock ->
 * sched_lock (the per-process walk holds both, the per-thread one
 * sched_lock).
 */
#include <scion/monitor.h>
#include <scion/cpu.h>
#include <scion/proc.h>
#include <scion/sched.h>
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

int monitor_thread_slot(const struct monitor_source *s)
{
	if (s->scope == MONITOR_SCOPE_PROCESS)
		s = s->of_thread;
	int slot = 0;
	LINKER_TABLE_FOREACH(struct monitor_source, monitor_sources, it) {
		if (it == s)
			return slot < MONITOR_THREAD_SOURCES_MAX ? slot : -1;
		if (it->scope == MONITOR_SCOPE_THREAD)
			slot++;
	}
	return -1;
}

void monitor_thread_leaves(const struct thread *t, struct monitor_exited *acc)
{
	irqflags_t f = spin_lock_irqsave(&sched_lock);
	int slot = 0;
	LINKER_TABLE_FOREACH(struct monitor_source, monitor_sources, s)
		if (s->scope == MONITOR_SCOPE_THREAD && slot < MONITOR_THREAD_SOURCES_MAX)
			acc->value[slot++] += s->read.thread(t);
	spin_unlock_irqrestore(&sched_lock, f);
}

_Static_assert(PROC_NAME_MAX < sizeof(((struct monitor_process_row *)0)->name),
	       "a process name fits a row");

struct process_walk {
	const struct monitor_source *const *sources;
	int slot[MONITOR_THREAD_SOURCES_MAX];
	unsigned nsources;
	struct monitor_process_row *rows;
	unsigned max, n;
};

/* proc_foreach_monitor's visitor: proc_lock and sched_lock held. */
static void read_process(const struct proc_monitor_view *v, void *arg)
{
	struct process_walk *w = arg;
	if (w->n < w->max) {
		struct monitor_process_row *r = &w->rows[w->n];
		r->pid = v->pid;
		r->threads = v->thread ? 1 : 0;
		memset(r->name, 0, sizeof(r->name));	/* the name is its own thread's: copy */
		memcpy(r->name, v->name, PROC_NAME_MAX - 1);	/* bounded, NUL-ended */
		for (unsigned i = 0; i < w->nsources; i++) {
			const struct monitor_source *s = w->sources[i];
			r->value[i] = (w->slot[i] >= 0 ? v->exited->value[w->slot[i]] : 0) +
				      (v->thread ? s->read.thread(v->thread) : 0);
		}
	}
	w->n++;
}

int monitor_read_processes(const struct monitor_source *const *sources, unsigned nsources,
			   struct monitor_process_row *rows, unsigned max)
{
	if (nsources > MONITOR_THREAD_SOURCES_MAX)
		return -EINVAL;
	struct process_walk w = { .sources = sources, .nsources = nsources, .rows = rows,
				  .max = max };
	for (unsigned i = 0; i < nsources; i++) {
		if (sources[i]->scope != MONITOR_SCOPE_PROCESS || !sources[i]->of_thread)
			return -EINVAL;
		w.slot[i] = monitor_thread_slot(sources[i]);
	}
	proc_foreach_monitor(read_process, &w);
	return (int)w.n;
}
