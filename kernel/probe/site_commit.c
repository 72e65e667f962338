// SPDX-License-Identifier: BSD-2-Clause
/*
 * Changing the text of probe sites safely while every CPU runs.
 *
 * A commit works on a batch of sites at once, each with one
 * thing to do: install, rebuild (new consumers: a new patch), remove.
 * Every step writes all the batch's bytes and then synchronises every CPU
 * once, so a batch of PROBE_BATCH sites costs three rounds, not three per
 * site. The steps, as djprobe does them:
 *
 *   1. Write int3 over the first byte of every site (installs, rebuilt
 *      jumps, removed jumps); restore the byte of removed int3 sites.
 *      Sync. From here a CPU that reaches a jump site traps, and the
 *      breakpoint handler sends it to the site's current patch.
 *   2. Installs only: make sure no CPU or thread is inside a region past
 *      its first byte (interrupted and preempted pcs, safety.c), looking
 *      again a few times; a site still in use becomes an int3 probe (its
 *      breakpoint is already in place).
 *   3. Write the tail of every jump (rel32), or restore the tail of every
 *      removed jump. Sync.
 *   4. Write the jmp opcode over the int3 of every jump, or restore the
 *      first byte of every removed jump. Sync.
 *   5. Unpublish removed sites; retire replaced and removed patches (they
 *      are freed once nothing runs in them); one more sync before the
 *      removed sites' memory is freed (the handler walks the table).
 *
 * Tests watch the intermediate states through probe_set_step_observer.
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

/* Collect the text writes of one step into ops; returns how many. */
static size_t step_ops(struct list_node *work, int step, struct text_poke_op *ops,
		       struct site_bytes *bytes)
{
	size_t n = 0, i = 0;
	uint8_t brk = patch_breakpoint_byte();

	list_foreach(work, it) {
		struct probe_site *s = list_entry(it, struct probe_site, work);
		struct site_bytes *sb = &bytes[i++];
		bool jump = s->mechanism == SITE_JUMP;
		void *at = (void *)(uintptr_t)s->addr;
		uint8_t jmp[PATCH_JUMP_LEN];

		if (s->want == WANT_NONE)
			continue;
		if (jump && s->want != WANT_REMOVE)
			patch_jump_bytes(jmp, s->addr, s->patch->entry);
		switch (step) {
		case 1:
			if (s->want == WANT_REMOVE && !jump) {
				sb->head = s->orig[0];
			} else if (s->want == WANT_INSTALL || jump) {
				sb->head = brk;
			} else {
				continue;	/* rebuilt int3 site: no text change */
			}
			ops[n++] = (struct text_poke_op){ at, &sb->head, 1 };
			break;
		case 3:
			if (!jump)
				continue;
			if (s->want == WANT_REMOVE) {
				memcpy(sb->tail, s->orig + 1, s->length - 1u);
				ops[n++] = (struct text_poke_op){ at + 1, sb->tail, s->length - 1u };
			} else {
				memcpy(sb->tail, jmp + 1, PATCH_JUMP_LEN - 1);
				ops[n++] = (struct text_poke_op){ at + 1, sb->tail, PATCH_JUMP_LEN - 1 };
			}
			break;
		case 4:
			if (!jump)
				continue;
			sb->head = s->want == WANT_REMOVE ? s->orig[0] : jmp[0];
			ops[n++] = (struct text_poke_op){ at, &sb->head, 1 };
			break;
		}
	}
	return n;
}

/*
 * Step 2: installs that something is still inside become int3 probes.
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
			if (s->want == WANT_INSTALL && s->mechanism == SITE_JUMP)
				site_demote_to_int3(s, "no memory to check that no CPU is inside the region");
		}
		goto out;
	}
	list_foreach(work, it) {
		struct probe_site *s = list_entry(it, struct probe_site, work);
		if (s->want != WANT_INSTALL || s->mechanism != SITE_JUMP)
			continue;
		sites[k] = s;
		starts[k] = s->addr + 1;
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
		site_demote_to_int3(sites[i], "a CPU or thread stayed inside the region while it was patched");
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
void site_commit(struct list_node *work, struct text_poke_op *ops, struct site_bytes *bytes)
{
	size_t n = 0;
	list_foreach(work, it)
		n++;
	if (!n)
		return;

	size_t k = step_ops(work, 1, ops, bytes);
	if (k) {
		poke(ops, k);
	}
	observe(1);
	check_installs(work, (unsigned)n);
	for (int step = 3; step <= 4; step++) {
		k = step_ops(work, step, ops, bytes);
		if (k) {
			poke(ops, k);
		}
		observe((unsigned)step);
	}

	list_foreach(work, it) {
		struct probe_site *s = list_entry(it, struct probe_site, work);
		if (s->want == WANT_REMOVE) {
			site_unpublish(s);
			list_remove(&s->node);
			patch_retire(s->patch);
			probe_removals++;
		} else if (s->want == WANT_INSTALL) {
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
		if (s->want == WANT_REMOVE)
			kfree(s);
		else
			s->want = WANT_NONE;
	}
	patch_collect();
}

