/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * KernInst's metrics on kernel functions, built from probes
 * (kernel/metrics/):
 *
 *   count        calls made to the function (an entry counter);
 *   latency      cycles per call, entry to return, including time the
 *                thread spends switched out (wall-clock latency): the
 *                accumulated threads-inside area divided by the calls;
 *   concurrency  the average number of threads inside the function over
 *                the time measured (KernInst's AOT accumulator): area
 *                divided by elapsed cycles.
 *
 * A metric may be restricted to one thread (tid); it then runs in C at
 * every hit instead of as inline code. A recursive function counts once
 * per level, as in KernInst.
 */
#ifndef SCION_METRICS_H
#define SCION_METRICS_H

#include <scion/compiler.h>

enum metric_kind { METRIC_COUNT, METRIC_LATENCY, METRIC_CONCURRENCY };

struct metric_value {
	unsigned id;
	enum metric_kind kind;
	const char *function;
	uint64_t tid;			/* 0: every thread */
	uint64_t calls;			/* entries (count, latency) */
	int64_t inside;			/* threads inside now */
	uint64_t area;			/* sum over time of threads inside, in cycles */
	uint64_t elapsed;		/* cycles since the metric was set up */
};

/*
 * metric_add - set up a metric on a function and enable its probes.
 * Return value: the metric's id (> 0), or a negative errno after printing
 *   why (no such function, no fbt probe for it, out of accumulators).
 * Caller's context: thread, may sleep.
 */
int metric_add(enum metric_kind kind, const char *function, uint64_t tid);

/* Remove one metric (-ENOENT if there is none with that id) or all. */
int metric_remove(unsigned id);
void metric_clear(void);

/* Call fn with the current value of every metric, in id order. */
void metric_foreach(void (*fn)(const struct metric_value *v, void *arg), void *arg);

const char *metric_kind_name(enum metric_kind kind);

#endif
