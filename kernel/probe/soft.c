// SPDX-License-Identifier: BSD-2-Clause
/*
 * Software-fired probes (scion/probe.h, struct probe_soft): the probes
 * of providers that have no text to patch — dtrace:::BEGIN, profile
 * ticks, graft invocations. Their consumers sit in a fixed array of
 * slots; probe_fire (dispatch.c) reads the slots with interrupts masked
 * and without a lock.
 *
 * Invariant: a consumer is in a slot exactly while it is on its probe's
 * consumer list. Removing one is two steps: clear the slot (under
 * probe_mutex), then soft_quiesce, a cross-call every CPU runs with
 * interrupts masked; a CPU that runs it has left any probe_fire that
 * could still see the cleared slot, so the consumer may then be freed.
 */
#include <scion/probe.h>
#include <scion/xcall.h>
#include <scion/errno.h>
#include "probe_internal.h"

int soft_attach(struct probe *p, struct probe_consumer *c)
{
	struct probe_soft *s = p->soft;
	for (unsigned i = 0; i < PROBE_SOFT_CONSUMERS; i++) {
		if (s->slot[i])
			continue;
		__atomic_store_n(&s->slot[i], c, __ATOMIC_RELEASE);
		__atomic_store_n(&s->live, s->live + 1, __ATOMIC_RELEASE);
		if (s->also_live)
			__atomic_store_n(s->also_live, *s->also_live + 1, __ATOMIC_RELEASE);
		return 0;
	}
	return -ENOSPC;
}

void soft_detach(struct probe *p, struct probe_consumer *c)
{
	struct probe_soft *s = p->soft;
	for (unsigned i = 0; i < PROBE_SOFT_CONSUMERS; i++) {
		if (s->slot[i] != c)
			continue;
		__atomic_store_n(&s->slot[i], NULL, __ATOMIC_RELEASE);
		__atomic_store_n(&s->live, s->live - 1, __ATOMIC_RELEASE);
		if (s->also_live)
			__atomic_store_n(s->also_live, *s->also_live - 1, __ATOMIC_RELEASE);
		return;
	}
}

static void passed(void *arg)
{
	(void)arg;
}

void soft_quiesce(void)
{
	xcall_all(passed, NULL);
}
