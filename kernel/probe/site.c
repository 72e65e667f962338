// SPDX-License-Identifier: BSD-2-Clause
/*
 * Probe sites: the patched addresses, their lock-free lookup table, and
 * the protocols that change text safely while every CPU runs.
 *
 * Changing text (commit) works on a batch of sites at once, each with one
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
 *      its first byte (interrupted pcs, stack words); a site that fails
 *      becomes an int3 probe (its breakpoint is already in place).
 *   3. Write the tail of every jump (rel32), or restore the tail of every
 *      removed jump. Sync.
 *   4. Write the jmp opcode over the int3 of every jump, or restore the
 *      first byte of every removed jump. Sync.
 *   5. Unpublish removed sites; retire replaced and removed patches (they
 *      are freed once nothing runs in them); one more sync before the
 *      removed sites' memory is freed (the handler walks the table).
 *
 * The table is read by the breakpoint handler without locks (see
 * probe_internal.h); everything else runs under probe_mutex.
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
#include <arch/abi.h>
#include "probe_internal.h"

#define BUCKETS 1024
#define PATCH_ROOM 1024

struct mutex probe_mutex = MUTEX_INIT(probe_mutex, "probes");

static struct probe_site *buckets[BUCKETS];	/* published; probe_mutex to change */
static LIST_HEAD(all_sites);			/* probe_mutex */
uint64_t probe_sync_rounds, probe_installs, probe_removals, probe_refused_jumps;

enum want { WANT_NONE, WANT_INSTALL, WANT_REBUILD, WANT_REMOVE };

/* Per site and step of a commit: the bytes to write (kept until the batch is written). */
struct site_bytes {
	uint8_t head;
	uint8_t tail[SITE_REGION_MAX];
};

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

struct probe_site *site_find_locked(uint64_t addr)
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

static void unpublish(struct probe_site *s)
{
	struct probe_site **pp = &buckets[bucket(s->addr)];
	while (*pp != s)
		pp = &(*pp)->next_hash;
	__atomic_store_n(pp, s->next_hash, __ATOMIC_RELEASE);
}

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

/* The jump site whose detoured region contains addr (not at its start), or NULL. */
static struct probe_site *jump_covering(uint64_t addr)
{
	for (unsigned back = 1; back < SITE_REGION_MAX; back++) {
		struct probe_site *s = site_find_locked(addr - back);
		if (s && s->mechanism == SITE_JUMP && back < s->length)
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

/* Where each piece of a patch's code came from (struct patch_header). */
struct code_map {
	struct patch_map m[PATCH_MAP_MAX];
	unsigned n;
};

static void map_add(struct code_map *map, const struct patch_buf *b, uint64_t orig_offset)
{
	if (map->n < PATCH_MAP_MAX)
		map->m[map->n++] = (struct patch_map){ (uint16_t)b->len, (uint16_t)orig_offset };
}

/*
 * The relocated copy of [from, to), then a jump to `to` unless the copy
 * ends in an instruction that does not fall through (a region may end in
 * padding after a ret).
 */
static void relocate_region(struct patch_buf *b, uint64_t from, uint64_t to, struct code_map *map)
{
	bool falls_through = true;
	const char *why;

	for (uint64_t at = from; at < to && falls_through;) {
		struct insn in;
		insn_decode(&in, text_image_bytes(at), to - at, at);
		map_add(map, b, at - from);
		if (patch_relocate(b, &in, text_image_bytes(at), &why))
			b->overflow = true;	/* checked when the site was created */
		falls_through = insn_falls_through(&in);
		at += in.length;
	}
	if (falls_through)
		patch_emit_jmp(b, to);
}

/* The code of s's patch for state st into b (offsets in map are from b's start). */
static void emit(const struct probe_site *s, struct site_state *st, struct patch_buf *b,
		 struct code_map *map)
{
	map->n = 0;
	if (s->mechanism == SITE_JUMP && st->n) {
		bool flags_free = !(s->live_before & INSN_STATUS_FLAGS);
		map_add(map, b, 0);
		for (unsigned i = st->ncall; i < st->n; i++) {
			struct probe_consumer *c = st->c[i];
			struct patch_accumulator slots;
			if (c->action == PROBE_COUNT) {
				patch_emit_counter(b, (uintptr_t)c->counter, flags_free);
			} else {
				accumulator_slots(c->acc, &slots);
				patch_emit_accumulate(b, &slots, c->action == PROBE_ENTER ? 1 : -1);
			}
		}
		if (st->ncall)
			patch_emit_frame_call(b, s->addr, (uintptr_t)probe_dispatch_frame,
					      (uintptr_t)st);
	}
	relocate_region(b, s->addr, s->addr + s->length, map);
}

/*
 * A new state and patch for s and its current consumers. The code is
 * built twice: once to learn its size (every branch in it is a rel32
 * whatever the address), then in a patch of exactly that size, after the
 * header that maps it back to the kernel text.
 */
static int build(struct probe_site *s, struct patch **out)
{
	size_t n = s->nconsumers;
	struct site_state *st = kzalloc(sizeof(*st) + n * sizeof(st->c[0]));
	uint8_t *scratch = kmalloc(PATCH_ROOM);
	struct code_map map;
	struct patch_buf b;
	struct patch *p = NULL;

	if (!st || !scratch)
		goto fail;
	st->addr = s->addr;
	st->mechanism = s->mechanism;
	/* C consumers first: the frame call runs c[0 .. ncall-1]. */
	list_foreach(&s->consumer_list, it) {
		struct probe_consumer *c = list_entry(it, struct site_link, node)->consumer;
		if (s->mechanism == SITE_INT3 || !consumer_inline(c, s->live_before))
			st->c[st->ncall++] = c;
	}
	st->n = st->ncall;
	list_foreach(&s->consumer_list, it) {
		struct probe_consumer *c = list_entry(it, struct site_link, node)->consumer;
		if (s->mechanism == SITE_JUMP && consumer_inline(c, s->live_before))
			st->c[st->n++] = c;
	}

	patch_buf_init(&b, scratch, PATCH_ROOM, PATCH_CODE_BASE);
	emit(s, st, &b, &map);
	size_t header = ALIGN_UP(sizeof(struct patch_header) + map.n * sizeof(struct patch_map), 16);
	if (!patch_buf_ok(&b) || !(p = patch_alloc((uint32_t)(header + b.len))))
		goto fail;
	uint8_t *mem = patch_writable(p);
	p->entry = p->addr + header;
	patch_buf_init(&b, mem + header, p->size - header, p->entry);
	emit(s, st, &b, &map);
	if (!patch_buf_ok(&b))
		goto fail;
	struct patch_header *h = (struct patch_header *)mem;
	h->magic = PATCH_MAGIC;
	h->nmap = (uint16_t)map.n;
	h->code_offset = (uint16_t)header;
	h->site = s->addr;
	for (unsigned i = 0; i < map.n; i++)
		h->map[i] = (struct patch_map){ (uint16_t)(map.m[i].code + header), map.m[i].orig };
	kfree(scratch);
	st->resume = p->entry;
	p->state = st;
	*out = p;
	return 0;
fail:
	kfree(st);
	kfree(scratch);
	patch_retire(p);
	return -ENOMEM;
}

/* Make s an int3 probe (it was going to be a jump): a one-instruction copy. */
static int demote_to_int3(struct probe_site *s, const char *why)
{
	struct insn in;
	struct patch *p, *old = s->patch;

	insn_decode(&in, text_image_bytes(s->addr), SITE_REGION_MAX, s->addr);
	s->mechanism = SITE_INT3;
	s->length = in.length;
	s->why_not_jump = why;
	int err = build(s, &p);
	if (err)
		return err;
	s->patch = p;
	__atomic_store_n(&s->state, p->state, __ATOMIC_RELEASE);
	patch_retire(old);
	return 0;
}

/*
 * A new site at addr. coming (sorted) holds the addresses the caller is
 * about to probe too: a jump must not swallow them either.
 */
static struct probe_site *site_create(uint64_t addr, enum probe_mechanism mech,
				      const struct site_batch *coming, int *err, const char **why)
{
	struct probe_site *other;

	*err = probe_check_address(addr, why);
	if (*err)
		return NULL;
	if ((other = jump_covering(addr))) {
		*why = "inside the bytes a jump probe detours";
		*err = -EEXIST;
		return NULL;
	}
	struct probe_site *s = kzalloc(sizeof(*s));
	if (!s) {
		*err = -ENOMEM;
		return NULL;
	}
	s->addr = addr;
	list_init(&s->consumer_list);
	list_init(&s->work);
	memcpy(s->orig, text_image_bytes(addr), SITE_REGION_MAX);
	uint32_t after;
	if (cfg_live_at(addr, &s->live_before, &after))
		s->live_before = INSN_ALL_REGS;

	unsigned len = 0;
	const char *jump_why = NULL;
	int jerr = mech == PROBE_MECH_INT3 ? -EINVAL : jump_region(addr, &len, &jump_why);
	if (mech == PROBE_MECH_INT3)
		jump_why = "an int3 probe was asked for";
	if (!jerr && (site_within(addr, len) ||
		      (coming && sorted_u64_any_between(coming->sorted, coming->n, addr, addr + len)))) {
		jerr = -EEXIST;
		jump_why = "another probe lies inside the bytes a jump would detour";
	}
	if (!jerr) {
		s->mechanism = SITE_JUMP;
		s->length = (uint8_t)len;
		return s;
	}
	if (mech == PROBE_MECH_JUMP) {
		*why = jump_why;
		*err = jerr == -EEXIST ? -EEXIST : -EINVAL;
		probe_refused_jumps++;
		kfree(s);
		return NULL;
	}
	/* An int3 probe executes the instruction out of line: it must relocate. */
	struct insn in;
	uint8_t scratch[PATCH_RELOCATE_MAX];
	struct patch_buf b;
	insn_decode(&in, text_image_bytes(addr), SITE_REGION_MAX, addr);
	patch_buf_init(&b, scratch, sizeof(scratch), PATCH_CODE_BASE);
	if (patch_relocate(&b, &in, text_image_bytes(addr), why)) {
		*err = -EINVAL;
		kfree(s);
		return NULL;
	}
	s->mechanism = SITE_INT3;
	s->length = in.length;
	s->why_not_jump = jump_why;
	return s;
}

static int link_consumer(struct probe_site *s, struct probe_consumer *c)
{
	struct site_link *l = kzalloc(sizeof(*l));
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
			kfree(l);
			s->nconsumers--;
			return true;
		}
	}
	return false;
}

static void add_work(struct list_node *work, struct probe_site *s, enum want w)
{
	if (s->want == WANT_NONE) {
		s->want = (uint8_t)w;
		list_add_tail(work, &s->work);
	} else if (w == WANT_REMOVE || s->want == WANT_REMOVE) {
		s->want = s->nconsumers ? WANT_REBUILD : WANT_REMOVE;
	}
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
				demote_to_int3(s, "no memory to check that no CPU is inside the region");
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
		demote_to_int3(sites[i], "a CPU or thread stayed inside the region while it was patched");
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

/* Carry out every site's `want` (see the steps at the top of the file). */
static void commit(struct list_node *work, struct text_poke_op *ops, struct site_bytes *bytes)
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
			unpublish(s);
			list_remove(&s->node);
			patch_retire(s->patch);
			probe_removals++;
		} else if (s->want == WANT_INSTALL) {
			s->installed = true;
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
		if (s->want == WANT_REMOVE)
			continue;
		while (build(s, &p)) {
			if (!fail_attach) {
				thread_sleep_ms(10);
				continue;
			}
			printk("probe: no memory for the patch at 0x%llx; left as it was\n",
			       (unsigned long long)s->addr);
			fail_attach(s, arg);
			list_remove(&s->work);
			if (s->want == WANT_INSTALL) {
				unpend(s);
				kfree(s);
			} else {
				s->want = WANT_NONE;
			}
			goto next;
		}
		s->patch = p;
		__atomic_store_n(&s->state, p->state, __ATOMIC_RELEASE);
		if (s->want == WANT_INSTALL) {
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
static bool batch_memory(unsigned n, struct text_poke_op **ops, struct site_bytes **bytes)
{
	*ops = kmalloc((n ? n : 1) * sizeof(**ops));
	*bytes = kmalloc((n ? n : 1) * sizeof(**bytes));
	if (*ops && *bytes)
		return true;
	kfree(*ops);
	kfree(*bytes);
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

unsigned site_attach_batch(const uint64_t *addrs, struct probe_consumer **cs, unsigned n,
			   int *errors, const struct site_batch *coming)
{
	LIST_HEAD(work);
	struct attach_batch a = { addrs, cs, n, errors };
	unsigned ok = 0;
	struct text_poke_op *ops;
	struct site_bytes *bytes;

	if (!batch_memory(n, &ops, &bytes)) {
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
		else if (mech == PROBE_MECH_JUMP && s->mechanism != SITE_JUMP)
			err = -EEXIST, why = "an int3 probe is already at this address";
		else if (mech == PROBE_MECH_INT3 && s->mechanism != SITE_INT3)
			err = -EEXIST, why = "a jump probe is already at this address";
		if (!err && link_consumer(s, cs[i]))
			err = -ENOMEM;
		errors[i] = err;
		if (err) {
			if (fresh && s)
				kfree(s);
			printk("probe: cannot probe 0x%llx: %s\n", (unsigned long long)addrs[i],
			       why ? why : errno_name(err));
			continue;
		}
		if (fresh)
			pend(s);
		add_work(&work, s, fresh ? WANT_INSTALL : WANT_REBUILD);
	}
	prepare(&work, fail_attach, &a);
	commit(&work, ops, bytes);
	mutex_unlock(&probe_mutex);
	for (unsigned i = 0; i < n; i++)
		ok += !errors[i];
	kfree(ops);
	kfree(bytes);
	return ok;
}

void site_detach_batch(const uint64_t *addrs, struct probe_consumer **cs, unsigned n)
{
	LIST_HEAD(work);
	struct text_poke_op *ops;
	struct site_bytes *bytes;

	/* Detaching must not fail: without memory, wait for some. */
	while (!batch_memory(n, &ops, &bytes))
		thread_sleep_ms(10);
	mutex_lock(&probe_mutex);
	for (unsigned i = 0; i < n; i++) {
		struct probe_site *s = site_find_locked(addrs[i]);
		if (!s || !unlink_consumer(s, cs[i]))
			continue;
		add_work(&work, s, s->nconsumers ? WANT_REBUILD : WANT_REMOVE);
	}
	prepare(&work, NULL, NULL);
	commit(&work, ops, bytes);
	mutex_unlock(&probe_mutex);
	kfree(ops);
	kfree(bytes);
}

void site_get_counts(uint32_t *sites, uint32_t *jumps, uint32_t *int3s)
{
	*sites = *jumps = *int3s = 0;
	list_foreach(&all_sites, it) {
		struct probe_site *s = list_entry(it, struct probe_site, node);
		(*sites)++;
		if (s->mechanism == SITE_JUMP)
			(*jumps)++;
		else
			(*int3s)++;
	}
}

void probe_site_info(uint64_t addr, struct probe_site_info *info)
{
	*info = (struct probe_site_info){ 0 };
	mutex_lock(&probe_mutex);
	struct probe_site *s = site_find_locked(addr);
	if (s) {
		info->present = true;
		info->mechanism = s->mechanism == SITE_JUMP ? PROBE_MECH_JUMP : PROBE_MECH_INT3;
		info->length = s->mechanism == SITE_JUMP ? s->length : 1;
		info->why_not_jump = s->mechanism == SITE_JUMP ? NULL : s->why_not_jump;
		info->hits = READ_ONCE(s->state->hits);
		info->missed = READ_ONCE(s->state->missed);
		info->consumers = s->nconsumers;
		info->patch = s->patch ? s->patch->entry : 0;
	}
	mutex_unlock(&probe_mutex);
}
