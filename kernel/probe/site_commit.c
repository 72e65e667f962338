// SPDX-License-Identifier: BSD-2-Clause
/*
 * Changing the text of probe sites safely while every CPU runs: the
 * protocol of scion/probe_arch.h, on a batch of sites at once.
 *
 * A commit works on a batch of sites, each with one thing to do:
 * install, rebuild (new consumers: a new patch), remove. Every step
 * writes all the batch's bytes and then synchronises every CPU once, so
 * a batch of PROBE_BATCH sites costs three rounds, not three per site.
 * The steps, as djprobe does them:
 *
 *   1. Write the breakpoint. Sync.
 *   2. Installs only: make sure no CPU or thread is inside a jump's
 *      region past its first instruction (interrupted and preempted pcs,
 *      safety.c), looking again a few times; a site still in use
 *      becomes a breakpoint probe (its breakpoint is already in place).
 *   3. Write the body. Sync.
 *   4. Arm. Sync.
 *   5. Unpublish removed sites; retire replaced and removed patches (they
 *      are freed once nothing runs in them); one more sync before the
 *      removed sites' memory is freed (the handler walks the table).
 *
 * What steps 1, 3 and 4 write at each site is the arch's
 * (arch_probe_write_step; x86: arch/x86/splice.c). Tests watch the
 * intermediate states through probe_set_step_observer.
 * Caller's context: probe_mutex held.
 */
#include <scion/probe.h>
#include <scion/mm.h>
#include <scion/textpoke.h>
#include <scion/string.h>
#include <scion/printk.h>
#include <scion/errno.h>
#include <scion/clock.h>
#include "probe_internal.h"

/* Sites were checked when created: a refused write is a bug, not an input error. */
static void poke(const struct text_poke_op *ops, size_t n)
{
	int err = text_poke_batch(ops, n);
	if (err)
		panic("probe: text_poke_batch refused %zu checked writes: %s", n, errno_name(err));
	probe_sync_rounds++;
}

static void sync_all(void)
{
	text_sync_all_cpus();
	probe_sync_rounds++;
}

/* The batch as the arch's write steps see it, in work-list order. */
static void describe(struct list_node *work, struct probe_step_site *steps)
{
	size_t i = 0;

	list_foreach(work, it) {
		struct probe_site *s = list_entry(it, struct probe_site, work);
		struct probe_step_site *d = &steps[i++];
		d->addr = s->addr;
		d->mechanism = s->mechanism;
		d->change = s->want;
		d->length = s->length;
		d->orig = s->orig;
		d->patch = s->patch ? s->patch->entry : 0;
		d->springboard = s->springboard;
	}
}

/* One write step for the whole batch: the arch's bytes, then one sync. */
static void write_step(struct list_node *work, size_t n, unsigned step, struct text_poke_op *ops,
		       struct probe_step_site *steps)
{
	describe(work, steps);
	size_t k = arch_probe_write_step(step, steps, n, ops);
	if (k)
		poke(ops, k);
}

/*
 * Step 2: installs that something is still inside become breakpoint probes.
 * Whatever is inside can only leave (the breakpoint stops newcomers), so
 * a region found in use is looked at again a few times, a millisecond
 * apart, before the site gives up on its jump.
 */
#define CHECK_TRIES 8

static void check_installs(struct list_node *work, unsigned n)
{
	uint64_t *starts = kmalloc(n * sizeof(uint64_t));
	uint64_t *ends = kmalloc(n * sizeof(uint64_t));
	bool *in_use = kzalloc(n * sizeof(bool));
	struct probe_site **sites = kmalloc(n * sizeof(*sites));
	unsigned k = 0;

	if (!starts || !ends || !in_use || !sites) {
		/* Without memory to check, no jump is safe. */
		list_foreach(work, it) {
			struct probe_site *s = list_entry(it, struct probe_site, work);
			if (s->want == PROBE_CHANGE_INSTALL && s->mechanism == PROBE_SITE_JUMP)
				site_demote_to_breakpoint(s, "no memory to check that no CPU is inside the region");
		}
		goto out;
	}
	list_foreach(work, it) {
		struct probe_site *s = list_entry(it, struct probe_site, work);
		if (s->want != PROBE_CHANGE_INSTALL || s->mechanism != PROBE_SITE_JUMP)
			continue;
		sites[k] = s;
		starts[k] = s->addr + 1;	/* a pc at the first byte runs the breakpoint */
		ends[k++] = s->addr + s->length;
	}
	for (unsigned try = 0; k && try < CHECK_TRIES; try++) {
		if (try)
			thread_sleep_ms(1);
		memset(in_use, 0, k * sizeof(bool));
		if (!code_in_use(starts, ends, k, in_use))
			goto out;
		/* Keep only the sites still in use. */
		unsigned still = 0;
		for (unsigned i = 0; i < k; i++) {
			if (!in_use[i])
				continue;
			sites[still] = sites[i];
			starts[still] = starts[i];
			ends[still++] = ends[i];
		}
		k = still;
	}
	for (unsigned i = 0; i < k; i++)
		site_demote_to_breakpoint(sites[i], "a CPU or thread stayed inside the region while it was patched");
out:
	kfree(starts);
	kfree(ends);
	kfree(in_use);
	kfree(sites);
}

static void (*step_observer)(unsigned step, void *arg);	/* probe_mutex */
static void *step_observer_arg;

void probe_set_step_observer(void (*fn)(unsigned step, void *arg), void *arg)
{
	mutex_lock(&probe_mutex);
	step_observer = fn;
	step_observer_arg = arg;
	mutex_unlock(&probe_mutex);
}

static void observe(unsigned step)
{
	if (step_observer)
		step_observer(step, step_observer_arg);
}

/* Carry out every site's `want`: the steps at the top of the file. */
void site_commit(struct list_node *work, struct text_poke_op *ops, struct probe_step_site *steps)
{
	size_t n = 0;
	list_foreach(work, it)
		n++;
	if (!n)
		return;

	write_step(work, n, PROBE_STEP_BREAKPOINT, ops, steps);
	observe(PROBE_STEP_BREAKPOINT);
	check_installs(work, (unsigned)n);
	write_step(work, n, PROBE_STEP_BODY, ops, steps);
	observe(PROBE_STEP_BODY);
	write_step(work, n, PROBE_STEP_ARM, ops, steps);
	observe(PROBE_STEP_ARM);

	list_foreach(work, it) {
		struct probe_site *s = list_entry(it, struct probe_site, work);
		if (s->want == PROBE_CHANGE_REMOVE) {
			site_unpublish(s);
			list_remove(&s->node);
			/* Its springboard goes with its last patch, once nothing runs in either. */
			s->patch->springboard = s->springboard;
			patch_retire(s->patch);
			probe_removals++;
		} else if (s->want == PROBE_CHANGE_INSTALL) {
			probe_installs++;
		}
	}
	/*
	 * After this round no handler walks a removed site or runs a detached
	 * consumer: both may be freed.
	 */
	sync_all();
	list_foreach_safe(work, it, tmp) {
		struct probe_site *s = list_entry(it, struct probe_site, work);
		list_remove(&s->work);
		if (s->want == PROBE_CHANGE_REMOVE)
			probe_pool_free(&probe_site_pool, s);
		else
			s->want = PROBE_CHANGE_NONE;
	}
	patch_collect();
}

