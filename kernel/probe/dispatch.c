// SPDX-License-Identifier: BSD-2-Clause
/*
 * Running consumers: from the breakpoint handler (breakpoint sites, and
 * jump sites while their jump is being written) and from the frame call
 * in a jump patch.
 *
 * Consumers run with interrupts masked, so that once a round of
 * cross-calls has completed after a consumer was detached, no CPU is
 * still inside it and its owner may free it. A hit while this CPU is
 * already running consumers (a handler that reaches a probed function)
 * only counts as missed: probes never recurse.
 */
#include <scion/pause.h>
#include <scion/probe.h>
#include <scion/cpu.h>
#include <scion/thread.h>
#include <scion/atomic.h>
#include <scion/errno.h>
#include <arch/cpu.h>
#include "probe_internal.h"

#define ACCUMULATORS (PROBE_CPU_SLOTS / 3)

static uint64_t accumulator_used;	/* probe_mutex: bit per accumulator */
static uint64_t accumulator_released;	/* probe_mutex: released, not yet reusable */

/*
 * Retired patches may still run an accumulator's inline code (a thread
 * preempted at a patch's start resumes there), so a released
 * accumulator's slots are reused only once no retired patch is left.
 * Called by the patch heap then.
 */
void accumulators_quiet(void)
{
	accumulator_used &= ~accumulator_released;
	accumulator_released = 0;
}

void accumulator_slots(const struct probe_accumulator *acc, struct patch_accumulator *out)
{
	uint32_t base = (uint32_t)(offsetof(struct cpu, probe_slots) + acc->slot * sizeof(uint64_t));
	out->last = base;
	out->inside = base + 8;
	out->area = base + 16;
}

int probe_accumulator_init(struct probe_accumulator *acc)
{
	mutex_lock(&probe_mutex);
	int i = 0;
	while (i < ACCUMULATORS && (accumulator_used >> i) & 1)
		i++;
	if (i == ACCUMULATORS) {
		mutex_unlock(&probe_mutex);
		return -ENOSPC;
	}
	accumulator_used |= 1ull << i;
	acc->slot = (unsigned)i * 3;
	acc->started = arch_cycles();
	acc->thread_depth = 0;
	for (unsigned c = 0; c < MAX_CPUS; c++) {
		uint64_t *s = &cpu_by_index(c)->probe_slots[acc->slot];
		s[0] = acc->started;
		s[1] = 0;
		s[2] = 0;
	}
	mutex_unlock(&probe_mutex);
	return 0;
}

void probe_accumulator_release(struct probe_accumulator *acc)
{
	mutex_lock(&probe_mutex);
	accumulator_released |= 1ull << (acc->slot / 3);
	patch_collect();
	mutex_unlock(&probe_mutex);
}

void probe_accumulator_read(const struct probe_accumulator *acc, int64_t *inside,
			    uint64_t *area, uint64_t *elapsed)
{
	uint64_t now = arch_cycles();
	int64_t in = 0;
	uint64_t total = 0;

	for (unsigned c = 0; c < cpu_count(); c++) {
		const uint64_t *s = &cpu_by_index(c)->probe_slots[acc->slot];
		uint64_t last = READ_ONCE(s[0]);
		int64_t here = (int64_t)READ_ONCE(s[1]);
		in += here;
		total += READ_ONCE(s[2]) + (uint64_t)(here * (int64_t)(now - last));
	}
	*inside = in;
	*area = total;
	*elapsed = now - acc->started;
}

/* The accumulator step of patch_emit_accumulate, in C. Interrupts masked. */
static void accumulate(const struct probe_accumulator *acc, int delta)
{
	uint64_t *s = &this_cpu()->probe_slots[acc->slot];
	uint64_t now = arch_cycles();

	s[2] += (uint64_t)((int64_t)s[1] * (int64_t)(now - s[0]));
	s[0] = now;
	s[1] += (uint64_t)(int64_t)delta;
}

bool consumer_inline(const struct probe_consumer *c, uint32_t live_before)
{
	if (c->tid || c->no_inline)
		return false;
	switch (c->action) {
	case PROBE_COUNT:
		return true;
	case PROBE_ENTER: case PROBE_EXIT:
		return !(live_before & patch_accumulate_clobbers());
	default:
		return false;
	}
}

static void consumer_run(struct probe_consumer *c, const struct probe_hit *hit)
{
	if (c->tid) {
		struct thread *t = this_cpu()->current;
		if (!t || t->tid != c->tid)
			return;
	}
	switch (c->action) {
	case PROBE_COUNT:
		atomic_add(c->counter, 1);
		break;
	case PROBE_ENTER:
		if (c->tid)
			c->acc->thread_depth++;
		accumulate(c->acc, 1);
		break;
	case PROBE_EXIT:
		/*
		 * One thread's accumulator can tell a return from a call entered
		 * before it was set up (the thread was inside, perhaps asleep):
		 * that exit is not counted, so the thread's count never goes
		 * below zero. (Every thread's, inline, cannot: see metrics.h.)
		 */
		if (c->tid) {
			if (!c->acc->thread_depth)
				break;
			c->acc->thread_depth--;
		}
		accumulate(c->acc, -1);
		break;
	case PROBE_HANDLER:
		c->handler(hit, c->arg);
		break;
	case PROBE_REDIRECT:	/* code in the patch: site_build never lists it to run */
		break;
	}
}

/* Run the first n consumers of st. Interrupts masked. */
static void run_consumers(struct site_state *st, unsigned n, struct trap_frame *frame)
{
	struct cpu *cpu = this_cpu();

	if (cpu_probe_running(cpu)) {
		atomic_add(&st->missed, 1);
		return;
	}
	atomic_add(&st->hits, 1);
	cpu_probe_hit_begin(cpu);
	for (unsigned i = 0; i < n; i++) {
		struct probe_hit hit = { .probe = st->c[i]->firing_for,
					 .addr = st->addr, .regs = frame };
		consumer_run(st->c[i], &hit);
	}
	cpu_probe_hit_end(cpu);
}

void probe_fire_consumers(struct probe *p, struct trap_frame *frame)
{
	irqflags_t f = arch_irq_save();
	struct cpu *cpu = this_cpu();
	struct probe_soft *s = p->soft;

	if (cpu_probe_running(cpu)) {
		atomic_add(&s->missed, 1);
		arch_irq_restore(f);
		return;
	}
	atomic_add(&s->hits, 1);
	cpu_probe_hit_begin(cpu);
	for (unsigned i = 0; i < PROBE_SOFT_CONSUMERS; i++) {
		struct probe_consumer *c = __atomic_load_n(&s->slot[i], __ATOMIC_ACQUIRE);
		if (!c)
			continue;
		struct probe_hit hit = { .probe = p, .addr = trap_frame_pc(frame), .regs = frame };
		consumer_run(c, &hit);
	}
	cpu_probe_hit_end(cpu);
	pause_hit_done(frame, PAUSE_SITE_SOFT, 0);
	arch_irq_restore(f);
}

/*
 * The frame call of a patch built for state. A replaced (retired) patch
 * still runs: from the moment its site's new state is published until
 * the jump to the new patch is armed, every call at the site goes
 * through the old code, and a thread preempted inside it resumes there
 * later. Such a call has run the old patch's inline consumers, which are
 * exactly the new patch's (whether a consumer is inline depends only on
 * it and the site), so it runs the C consumers attached now: the site's
 * current state. Running the old state's instead would reach detached
 * consumers, and skipping them would lose an accumulator's entry whose
 * return is counted (a latency metric's calls "inside" would go below 0).
 */
void probe_dispatch_frame(struct trap_frame *frame, uint64_t state)
{
	struct site_state *st = (struct site_state *)(uintptr_t)state;
	/* The patch this call returns into runs the region it was built for. */
	unsigned region = st->length;

	if (__atomic_load_n(&st->retired, __ATOMIC_ACQUIRE)) {
		struct probe_site *site = site_lookup(st->addr);
		st = site ? __atomic_load_n(&site->state, __ATOMIC_ACQUIRE) : NULL;
	}
	if (st)
		run_consumers(st, st->ncall, frame);
	pause_hit_done(frame, PAUSE_SITE_JUMP, region);
}

/*
 * The frame call of a patch whose one C consumer is a handler for every
 * thread (site_build.c's plan): the common case of a traced site, run
 * without the general path's loop and switch. A retired patch takes the
 * general path, which runs the site's current consumers.
 */
void probe_dispatch_handler(struct trap_frame *frame, uint64_t state)
{
	struct site_state *st = (struct site_state *)(uintptr_t)state;
	struct cpu *cpu = this_cpu();

	if (unlikely(__atomic_load_n(&st->retired, __ATOMIC_ACQUIRE))) {
		probe_dispatch_frame(frame, state);
		return;
	}
	if (unlikely(cpu_probe_running(cpu))) {
		atomic_add(&st->missed, 1);
	} else {
		struct probe_consumer *c = st->c[0];
		struct probe_hit hit = { .probe = c->firing_for, .addr = st->addr, .regs = frame };

		atomic_add(&st->hits, 1);
		cpu_probe_hit_begin(cpu);
		c->handler(&hit, c->arg);
		cpu_probe_hit_end(cpu);
	}
}

bool probe_breakpoint(struct trap_frame *frame)
{
	uint64_t addr = arch_probe_breakpoint_addr(frame);
	struct probe_site *site = site_lookup(addr);

	if (!site) {
		/* Trapped on a breakpoint that was removed while the trap was taken: retry. */
		if (!arch_probe_is_breakpoint(addr)) {
			trap_frame_set_pc(frame, addr);
			return true;
		}
		return false;
	}
	struct site_state *st = __atomic_load_n(&site->state, __ATOMIC_ACQUIRE);
	bool out_of_line = st->mechanism == PROBE_SITE_BREAKPOINT;
	if (out_of_line)
		run_consumers(st, st->n, frame);
	/*
	 * Resume first: a step's pause sleeps here, and the copy its frame now
	 * points into stays alive while it does (st may not: it is not read again).
	 */
	arch_probe_resume(frame, st->resume, out_of_line);
	pause_hit_done(frame, out_of_line ? PAUSE_SITE_TRAP : PAUSE_SITE_SOFT, 0);
	return true;
}
