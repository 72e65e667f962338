// SPDX-License-Identifier: BSD-2-Clause
/*
 * KernInst metrics over fbt probes: a counter on the entry probe and an
 * accumulator entered at the entry and left at every return.
 *
 * metrics_mutex guards the list; a metric's consumers are enabled before
 * it is listed and disabled after it is unlisted, so a listed metric
 * always has its probes in place.
 */
#include <scion/metrics.h>
#include <scion/probe.h>
#include <scion/mutex.h>
#include <scion/mm.h>
#include <scion/list.h>
#include <scion/string.h>
#include <scion/printk.h>
#include <scion/errno.h>
#include <scion/format.h>
#include <scion/cpu.h>

struct metric {
	unsigned id;
	enum metric_kind kind;
	char function[64];
	uint64_t tid;
	uint64_t *counter;			/* entries (count, latency) */
	struct probe_accumulator acc;		/* latency, concurrency */
	bool has_acc;
	struct probe_consumer count_c, enter_c, exit_c;
	struct list_node node;			/* metrics_mutex */
};

static struct mutex metrics_mutex = MUTEX_INIT(metrics_mutex, "metrics");
static LIST_HEAD(metrics);			/* metrics_mutex */
static unsigned next_id = 1;			/* metrics_mutex */

const char *metric_kind_name(enum metric_kind kind)
{
	switch (kind) {
	case METRIC_COUNT: return "count";
	case METRIC_LATENCY: return "latency";
	case METRIC_CONCURRENCY: return "concurrency";
	}
	return "?";
}

struct found {
	struct probe *p;
};

static bool take_first(struct probe *p, void *arg)
{
	((struct found *)arg)->p = p;
	return false;
}

static struct probe *fbt_probe(const char *function, const char *name)
{
	char spec[128];
	struct found f = { NULL };
	const char *why;

	if (strchr(function, '*') || strchr(function, '?') || strchr(function, '[') ||
	    strlen(function) > 96)
		return NULL;
	snprintf(spec, sizeof(spec), "fbt:kernel:%s:%s", function, name);
	probe_lookup(spec, take_first, &f, &why);
	return f.p;
}

static void release(struct metric *m)
{
	if (m->counter)
		probe_counter_free(m->counter);
	if (m->has_acc)
		probe_accumulator_release(&m->acc);
	kfree(m);
}

static void consumer_setup(struct probe_consumer *c, enum probe_action action, struct metric *m)
{
	c->action = action;
	c->tid = m->tid;
	c->counter = m->counter;
	c->acc = &m->acc;
	c->mechanism = PROBE_MECH_AUTO;
}

int metric_add(enum metric_kind kind, const char *function, uint64_t tid)
{
	const char *kname = metric_kind_name(kind);
	struct probe *entry = fbt_probe(function, "entry");
	struct probe *ret = fbt_probe(function, "return");
	struct probe *probes[3];
	struct probe_consumer *cs[3];
	unsigned n = 0;

	if (!entry) {
		printk("%s: no fbt probe for '%s' (not a function, or one that cannot be probed)\n",
		       kname, function);
		return -ENOENT;
	}
	if (kind != METRIC_COUNT && !ret) {
		printk("%s: '%s' never returns, so there is nothing to time\n", kname, function);
		return -EINVAL;
	}
	struct metric *m = kzalloc(sizeof(*m));
	if (!m)
		return -ENOMEM;
	m->kind = kind;
	m->tid = tid;
	strlcpy(m->function, function, sizeof(m->function));
	if (kind != METRIC_CONCURRENCY && !(m->counter = probe_counter_alloc())) {
		release(m);
		printk("%s: out of counter memory\n", kname);
		return -ENOMEM;
	}
	if (kind != METRIC_COUNT) {
		if (probe_accumulator_init(&m->acc)) {
			release(m);
			printk("%s: all %u accumulators are in use; remove a metric first\n", kname,
			       PROBE_CPU_SLOTS / 3);
			return -ENOSPC;
		}
		m->has_acc = true;
	}
	if (m->counter) {
		consumer_setup(&m->count_c, PROBE_COUNT, m);
		probes[n] = entry;
		cs[n++] = &m->count_c;
	}
	if (m->has_acc) {
		consumer_setup(&m->enter_c, PROBE_ENTER, m);
		consumer_setup(&m->exit_c, PROBE_EXIT, m);
		probes[n] = entry;
		cs[n++] = &m->enter_c;
		probes[n] = ret;
		cs[n++] = &m->exit_c;
	}
	if (probe_enable_batch(probes, cs, n) != n) {
		probe_disable_batch(cs, n);
		release(m);
		printk("%s: could not probe '%s' (see the message above)\n", kname, function);
		return -EINVAL;
	}
	mutex_lock(&metrics_mutex);
	m->id = next_id++;
	list_add_tail(&metrics, &m->node);
	mutex_unlock(&metrics_mutex);
	return (int)m->id;
}

static void remove_list(struct list_node *gone)
{
	unsigned n = 0, k = 0;
	list_foreach(gone, it)
		n++;
	struct probe_consumer **cs = kmalloc((n ? n : 1) * 3 * sizeof(*cs));
	list_foreach(gone, it) {
		struct metric *m = list_entry(it, struct metric, node);
		struct probe_consumer *mine[3] = { &m->count_c, &m->enter_c, &m->exit_c };
		for (unsigned i = 0; i < 3; i++) {
			if (!mine[i]->probe)
				continue;
			if (cs)
				cs[k++] = mine[i];
			else
				probe_disable(mine[i]);
		}
	}
	if (cs)
		probe_disable_batch(cs, k);
	kfree(cs);
	list_foreach_safe(gone, it, tmp) {
		struct metric *m = list_entry(it, struct metric, node);
		list_remove(&m->node);
		release(m);
	}
}

int metric_remove(unsigned id)
{
	LIST_HEAD(gone);
	mutex_lock(&metrics_mutex);
	list_foreach_safe(&metrics, it, tmp) {
		struct metric *m = list_entry(it, struct metric, node);
		if (m->id == id) {
			list_remove(&m->node);
			list_add_tail(&gone, &m->node);
		}
	}
	mutex_unlock(&metrics_mutex);
	if (list_empty(&gone))
		return -ENOENT;
	remove_list(&gone);
	return 0;
}

void metric_clear(void)
{
	LIST_HEAD(gone);
	mutex_lock(&metrics_mutex);
	list_foreach_safe(&metrics, it, tmp) {
		struct metric *m = list_entry(it, struct metric, node);
		list_remove(&m->node);
		list_add_tail(&gone, &m->node);
	}
	mutex_unlock(&metrics_mutex);
	remove_list(&gone);
}

void metric_foreach(void (*fn)(const struct metric_value *v, void *arg), void *arg)
{
	mutex_lock(&metrics_mutex);
	list_foreach(&metrics, it) {
		struct metric *m = list_entry(it, struct metric, node);
		struct metric_value v = {
			.id = m->id, .kind = m->kind, .function = m->function, .tid = m->tid,
			.calls = m->counter ? READ_ONCE(*m->counter) : 0,
		};
		if (m->has_acc)
			probe_accumulator_read(&m->acc, &v.inside, &v.area, &v.elapsed);
		fn(&v, arg);
	}
	mutex_unlock(&metrics_mutex);
}
