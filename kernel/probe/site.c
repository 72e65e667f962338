// SPDX-License-Identifier: BSD-2-Clause
/*
 * Probe sites: the patched addresses, their lock-free lookup table, and
 * attaching and detaching consumers in batches. A batch collects the
 * sites it changes in a work list, builds their new patches (prepare,
 * site_build.c) and hands the list to site_commit (site_commit.c), which
 * changes the text.
 *
 * The table is read by the breakpoint handler without locks (see
 * probe_internal.h): a site is published only once its patch exists and
 * unpublished before it is freed; sites created by the batch in progress
 * wait in a private table meanwhile. Everything else runs under
 * probe_mutex.
 */
#include <scion/probe.h>
#include <scion/cfg.h>
#include <scion/mm.h>
#include <scion/textpoke.h>
#include <scion/textimage.h>
#include <scion/string.h>
#include <scion/printk.h>
#include <scion/errno.h>
#include <scion/clock.h>
#include <scion/thread.h>
#include <scion/sort.h>
#include <arch/analysis.h>
#include "probe_internal.h"

#define BUCKETS 1024

struct mutex probe_mutex = MUTEX_INIT(probe_mutex, "probes");

static struct probe_site *buckets[BUCKETS];	/* published; probe_mutex to change */
struct probe_pool probe_site_pool = PROBE_POOL_INIT(struct probe_site, 16);
static LIST_HEAD(all_sites);			/* probe_mutex */
uint64_t probe_sync_rounds, probe_installs, probe_removals, probe_refused_jumps;

static unsigned bucket(uint64_t addr)
{
	return (unsigned)((addr * 0x9e3779b97f4a7c15ull) >> 54) % BUCKETS;
}

struct probe_site *site_lookup(uint64_t addr)
{
	struct probe_site *s = __atomic_load_n(&buckets[bucket(addr)], __ATOMIC_ACQUIRE);
	while (s && s->addr != addr)
		s = __atomic_load_n(&s->next_hash, __ATOMIC_ACQUIRE);
	return s;
}

/*
 * Sites created by the batch being attached are not published until their
 * patches exist; they wait here so that later entries of the same batch
 * find them (same address, overlapping regions).
 */
static struct probe_site *pending[BUCKETS];	/* probe_mutex */

static struct probe_site *site_find_locked(uint64_t addr)
{
	struct probe_site *s = site_lookup(addr);
	if (s)
		return s;
	for (s = pending[bucket(addr)]; s && s->addr != addr; s = s->next_hash)
		;
	return s;
}

static void pend(struct probe_site *s)
{
	s->next_hash = pending[bucket(s->addr)];
	pending[bucket(s->addr)] = s;
}

static void unpend(struct probe_site *s)
{
	struct probe_site **pp = &pending[bucket(s->addr)];
	while (*pp != s)
		pp = &(*pp)->next_hash;
	*pp = s->next_hash;
	s->next_hash = NULL;
}

static void publish(struct probe_site *s)
{
	struct probe_site **head = &buckets[bucket(s->addr)];
	s->next_hash = *head;
	__atomic_store_n(head, s, __ATOMIC_RELEASE);
}

void site_unpublish(struct probe_site *s)
{
	struct probe_site **pp = &buckets[bucket(s->addr)];
	while (*pp != s)
		pp = &(*pp)->next_hash;
	__atomic_store_n(pp, s->next_hash, __ATOMIC_RELEASE);
}

/* The jump site whose detoured region contains addr (not at its start), or NULL. */
static struct probe_site *jump_covering(uint64_t addr)
{
	for (unsigned back = 1; back < ARCH_PROBE_REGION_MAX; back++) {
		struct probe_site *s = site_find_locked(addr - back);
		if (s && s->mechanism == PROBE_SITE_JUMP && back < s->length)
			return s;
	}
	return NULL;
}

/* A site inside (addr, addr + len), or NULL. */
static struct probe_site *site_within(uint64_t addr, unsigned len)
{
	for (unsigned i = 1; i < len; i++) {
		struct probe_site *s = site_find_locked(addr + i);
		if (s)
			return s;
	}
	return NULL;
}

/*
 * A new site at addr. coming (sorted) holds the addresses the caller is
 * about to probe too: a jump must not swallow them either.
 */
static struct probe_site *site_create(uint64_t addr, enum probe_mechanism mech,
				      const struct site_batch *coming, int *err, const char **why)
{
	struct probe_site *other;

	uint32_t live;
	*err = probe_check_site(addr, why, &live);
	if (*err)
		return NULL;
	if ((other = jump_covering(addr))) {
		*why = "inside the bytes a jump probe detours";
		*err = -EEXIST;
		return NULL;
	}
	struct probe_site *s = probe_pool_alloc(&probe_site_pool);
	if (!s) {
		*err = -ENOMEM;
		return NULL;
	}
	s->addr = addr;
	list_init(&s->consumer_list);
	list_init(&s->work);
	/* Not memcpy: a probed call while fbt::: is being enabled (issue 28). */
	const uint8_t *orig = text_image_bytes(addr);
	for (unsigned i = 0; i < ARCH_PROBE_REGION_MAX; i++)
		s->orig[i] = orig[i];
	s->live_before = live;

	unsigned len = 0;
	const char *jump_why = NULL;
	int jerr = mech == PROBE_MECH_BREAKPOINT ? -EINVAL
						 : arch_probe_check_region(addr, &len, &jump_why);
	if (mech == PROBE_MECH_BREAKPOINT)
		jump_why = ARCH_PROBE_A_BREAKPOINT " probe was asked for";
	if (!jerr && (site_within(addr, len) ||
		      (coming && sorted_u64_any_between(coming->sorted, coming->n, addr, addr + len)))) {
		jerr = -EEXIST;
		jump_why = "another probe lies inside the bytes a jump would detour";
	}
	if (!jerr) {
		s->mechanism = PROBE_SITE_JUMP;
		s->length = (uint8_t)len;
		return s;
	}
	if (mech == PROBE_MECH_JUMP) {
		*why = jump_why;
		*err = jerr == -EEXIST ? -EEXIST : -EINVAL;
		probe_refused_jumps++;
		probe_pool_free(&probe_site_pool, s);
		return NULL;
	}
	/* A breakpoint probe executes the instruction out of line: the arch checks it can. */
	if (arch_probe_prepare_breakpoint(addr, &len, why)) {
		*err = -EINVAL;
		probe_pool_free(&probe_site_pool, s);
		return NULL;
	}
	s->mechanism = PROBE_SITE_BREAKPOINT;
	s->length = (uint8_t)len;
	s->why_not_jump = jump_why;
	return s;
}

static int link_consumer(struct probe_site *s, struct probe_consumer *c)
{
	struct site_link *l = s->first_link.consumer ? kzalloc(sizeof(*l)) : &s->first_link;
	if (!l)
		return -ENOMEM;
	l->consumer = c;
	list_add_tail(&s->consumer_list, &l->node);
	s->nconsumers++;
	return 0;
}

static bool unlink_consumer(struct probe_site *s, struct probe_consumer *c)
{
	list_foreach(&s->consumer_list, it) {
		struct site_link *l = list_entry(it, struct site_link, node);
		if (l->consumer == c) {
			list_remove(&l->node);
			if (l == &s->first_link)
				l->consumer = NULL;
			else
				kfree(l);
			s->nconsumers--;
			return true;
		}
	}
	return false;
}

static void add_work(struct list_node *work, struct probe_site *s, enum probe_site_change w)
{
	if (s->want == PROBE_CHANGE_NONE) {
		s->want = (uint8_t)w;
		list_add_tail(work, &s->work);
	} else if (w == PROBE_CHANGE_REMOVE || s->want == PROBE_CHANGE_REMOVE) {
		s->want = s->nconsumers ? PROBE_CHANGE_REBUILD : PROBE_CHANGE_REMOVE;
	}
}

/*
 * New patches for the sites of work that need one, before any text
 * changes. A site whose patch cannot be built is left as it was, and the
 * attachments of this batch to it fail (fail_attach); detaching cannot
 * fail, so then it waits for memory.
 */
static void prepare(struct list_node *work, void (*fail_attach)(struct probe_site *s, void *arg),
		    void *arg)
{
	list_foreach_safe(work, it, tmp) {
		struct probe_site *s = list_entry(it, struct probe_site, work);
		struct patch *p, *old = s->patch;
		if (s->want == PROBE_CHANGE_REMOVE)
			continue;
		while (site_build(s, &p)) {
			if (!fail_attach) {
				thread_sleep_ms(10);
				continue;
			}
			printk("probe: no memory for the patch at 0x%llx; left as it was\n",
			       (unsigned long long)s->addr);
			fail_attach(s, arg);
			list_remove(&s->work);
			if (s->want == PROBE_CHANGE_INSTALL) {
				unpend(s);
				probe_pool_free(&probe_site_pool, s);
			} else {
				s->want = PROBE_CHANGE_NONE;
			}
			goto next;
		}
		s->patch = p;
		__atomic_store_n(&s->state, p->state, __ATOMIC_RELEASE);
		if (s->want == PROBE_CHANGE_INSTALL) {
			unpend(s);
			list_add_tail(&all_sites, &s->node);
			publish(s);
		} else {
			patch_retire(old);
		}
next:;
	}
}

/* Room for the text writes of a batch of n sites. */
static bool batch_memory(unsigned n, struct text_poke_op **ops, struct probe_step_site **steps)
{
	*ops = kmalloc((n ? n : 1) * sizeof(**ops));
	*steps = kmalloc((n ? n : 1) * sizeof(**steps));
	if (*ops && *steps)
		return true;
	kfree(*ops);
	kfree(*steps);
	printk("probe: no memory to change %u sites\n", n);
	return false;
}

struct attach_batch {
	const uint64_t *addrs;
	struct probe_consumer **cs;
	unsigned n;
	int *errors;
};

/* Undo this batch's attachments to s (its patch could not be built). */
static void fail_attach(struct probe_site *s, void *arg)
{
	struct attach_batch *a = arg;
	for (unsigned i = 0; i < a->n; i++) {
		if (a->addrs[i] != s->addr || a->errors[i])
			continue;
		unlink_consumer(s, a->cs[i]);
		a->errors[i] = -ENOMEM;
	}
}

/* Whether a consumer at s sends the CPU elsewhere (one may). */
static bool site_redirects(struct probe_site *s)
{
	list_foreach(&s->consumer_list, it)
		if (list_entry(it, struct site_link, node)->consumer->action == PROBE_REDIRECT)
			return true;
	return false;
}

unsigned site_attach_batch(const uint64_t *addrs, struct probe_consumer **cs, unsigned n,
			   int *errors, const struct site_batch *coming)
{
	LIST_HEAD(work);
	struct attach_batch a = { addrs, cs, n, errors };
	unsigned ok = 0;
	struct text_poke_op *ops;
	struct probe_step_site *steps;

	if (!batch_memory(n, &ops, &steps)) {
		for (unsigned i = 0; i < n; i++)
			errors[i] = -ENOMEM;
		return 0;
	}
	mutex_lock(&probe_mutex);
	for (unsigned i = 0; i < n; i++) {
		const char *why = NULL;
		int err = 0;
		enum probe_mechanism mech = cs[i]->mechanism;
		struct probe_site *s = site_find_locked(addrs[i]);
		bool fresh = !s;
		if (fresh)
			s = site_create(addrs[i], mech, coming, &err, &why);
		else if (mech == PROBE_MECH_JUMP && s->mechanism != PROBE_SITE_JUMP)
			err = -EEXIST, why = ARCH_PROBE_A_BREAKPOINT " probe is already at this address";
		else if (mech == PROBE_MECH_BREAKPOINT && s->mechanism != PROBE_SITE_BREAKPOINT)
			err = -EEXIST, why = "a jump probe is already at this address";
		else if (cs[i]->action == PROBE_REDIRECT && site_redirects(s))
			err = -EEXIST, why = "another redirect is already at this address";
		if (!err && link_consumer(s, cs[i]))
			err = -ENOMEM;
		errors[i] = err;
		if (err) {
			if (fresh && s)
				probe_pool_free(&probe_site_pool, s);
			printk("probe: cannot probe 0x%llx: %s\n", (unsigned long long)addrs[i],
			       why ? why : errno_name(err));
			continue;
		}
		if (fresh)
			pend(s);
		add_work(&work, s, fresh ? PROBE_CHANGE_INSTALL : PROBE_CHANGE_REBUILD);
	}
	prepare(&work, fail_attach, &a);
	site_commit(&work, ops, steps);
	mutex_unlock(&probe_mutex);
	for (unsigned i = 0; i < n; i++)
		ok += !errors[i];
	kfree(ops);
	kfree(steps);
	return ok;
}

void site_detach_batch(const uint64_t *addrs, struct probe_consumer **cs, unsigned n)
{
	LIST_HEAD(work);
	struct text_poke_op *ops;
	struct probe_step_site *steps;

	/* Detaching must not fail: without memory, wait for some. */
	while (!batch_memory(n, &ops, &steps))
		thread_sleep_ms(10);
	mutex_lock(&probe_mutex);
	for (unsigned i = 0; i < n; i++) {
		struct probe_site *s = site_find_locked(addrs[i]);
		if (!s || !unlink_consumer(s, cs[i]))
			continue;
		add_work(&work, s, s->nconsumers ? PROBE_CHANGE_REBUILD : PROBE_CHANGE_REMOVE);
	}
	prepare(&work, NULL, NULL);
	site_commit(&work, ops, steps);
	mutex_unlock(&probe_mutex);
	kfree(ops);
	kfree(steps);
}

void probe_run_locked(void (*fn)(void *arg), void *arg)
{
	mutex_lock(&probe_mutex);
	fn(arg);
	mutex_unlock(&probe_mutex);
}

void site_get_counts(uint32_t *sites, uint32_t *jumps, uint32_t *breakpoints)
{
	*sites = *jumps = *breakpoints = 0;
	list_foreach(&all_sites, it) {
		struct probe_site *s = list_entry(it, struct probe_site, node);
		(*sites)++;
		if (s->mechanism == PROBE_SITE_JUMP)
			(*jumps)++;
		else
			(*breakpoints)++;
	}
}

const char *probe_mechanism_name(enum probe_mechanism m)
{
	switch (m) {
	case PROBE_MECH_JUMP: return "jump";
	case PROBE_MECH_BREAKPOINT: return ARCH_PROBE_BREAKPOINT_NAME;
	case PROBE_MECH_SPRINGBOARD: return "springboard";
	default: return "auto";
	}
}

void probe_site_info(uint64_t addr, struct probe_site_info *info)
{
	*info = (struct probe_site_info){ 0 };
	mutex_lock(&probe_mutex);
	struct probe_site *s = site_find_locked(addr);
	if (s) {
		info->present = true;
		info->mechanism = s->mechanism == PROBE_SITE_JUMP ? PROBE_MECH_JUMP : PROBE_MECH_BREAKPOINT;
		info->length = s->mechanism == PROBE_SITE_JUMP ? s->length : ARCH_PROBE_BREAKPOINT_LEN;
		info->why_not_jump = s->mechanism == PROBE_SITE_JUMP ? NULL : s->why_not_jump;
		info->hits = site_state_hits(s->state);
		info->missed = READ_ONCE(s->state->missed);
		info->consumers = s->nconsumers;
		info->patch = s->patch ? s->patch->entry : 0;
		info->springboard = s->springboard;
	}
	mutex_unlock(&probe_mutex);
}
