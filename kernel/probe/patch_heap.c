// SPDX-License-Identifier: BSD-2-Clause
/*
 * Memory for patches and their data, within the arch's branch reach of
 * the kernel text (arch/mmu.h: PATCH_CODE_BASE, PATCH_DATA_BASE,
 * ARCH_CODE_REACH), so a patch branches back to the text and inline code
 * reaches its counters directly.
 *
 * Code comes from two arenas: the near one (PATCH_CODE_BASE), which a
 * site's one-instruction branch reaches, and on a machine whose branch is
 * short (SPARC's ba,a: +-8 MB) a far one (PATCH_FAR_CODE_BASE, within a
 * call's reach), used when the near one is full or when asked
 * (probe_set_far_patches: experiments and tests): a site reaches a far
 * patch through a springboard (scion/probe_arch.h). A machine with no far
 * arena says PATCH_FAR_CODE_SIZE 0.
 *
 * Code is handed out in 64-byte units from a bitmap (a patch stays in
 * one page; a function copy, up to PATCH_UNITS_MAX units, may span
 * pages and is written page by page: patch_write); its pages are mapped
 * read-only and executable when first used, and written through their
 * direct-map alias, always before any CPU can jump to them. A patch that
 * is no longer reachable is retired, and freed only when no CPU's
 * interrupted pc and no word on any thread's stack points into it: a
 * thread preempted inside a patch resumes there.
 *
 * Data (counters) comes in runs of 8-byte slots within a page, read/write,
 * never executable.
 * Everything here runs under probe_mutex.
 */
#include <scion/mm.h>
#include <scion/string.h>
#include <scion/printk.h>
#include <scion/errno.h>
#include <scion/dif_jit.h>
#include "probe_internal.h"

#define CODE_UNIT      64
#define UNITS_PER_PAGE (PAGE_SIZE / CODE_UNIT)
#define DATA_SLOTS     (PATCH_DATA_SIZE / 8)
#define BITS           64
#define NEAR_UNITS     (PATCH_CODE_SIZE / CODE_UNIT)
#define FAR_UNITS      (PATCH_FAR_CODE_SIZE / CODE_UNIT)

_Static_assert(PATCH_CODE_BASE > KERNEL_VIRT_BASE && PATCH_DATA_BASE > KERNEL_VIRT_BASE &&
	       PATCH_CODE_BASE + PATCH_CODE_SIZE - KERNEL_VIRT_BASE <= ARCH_CODE_REACH &&
	       PATCH_DATA_BASE + PATCH_DATA_SIZE - KERNEL_VIRT_BASE <= ARCH_CODE_REACH &&
	       (PATCH_FAR_CODE_SIZE == 0 ||
		PATCH_FAR_CODE_BASE + PATCH_FAR_CODE_SIZE - KERNEL_VIRT_BASE <= ARCH_CODE_REACH),
	       "patches and their data must lie within ARCH_CODE_REACH of the kernel text");

static uint64_t near_used[NEAR_UNITS / BITS];		/* probe_mutex */
static uint64_t far_used[FAR_UNITS / BITS + 1];		/* probe_mutex */
/*
 * Per code unit: 1 + how many units back its patch starts; 0 when free.
 * Written under probe_mutex, read without a lock by patch_origin (a
 * patch that code is running in is never freed, so its entries hold).
 */
static uint8_t near_back[NEAR_UNITS];
static uint8_t far_back[FAR_UNITS + 1];
/*
 * Per page: its physical address | 1 once mapped, else 0; so that
 * allocating and writing a patch need not walk the page tables (issue 28).
 */
static uint64_t near_pa[NEAR_UNITS / UNITS_PER_PAGE];
static uint64_t far_pa[FAR_UNITS / UNITS_PER_PAGE + 1];

struct arena {
	uint64_t base;
	size_t units;
	uint64_t *used;		/* probe_mutex */
	uint8_t *back;
	size_t cursor;		/* probe_mutex: where the next search starts */
	uint64_t *pa;		/* probe_mutex */
};

static struct arena arenas[2] = {
	{ PATCH_CODE_BASE, NEAR_UNITS, near_used, near_back, 0, near_pa },
	{ PATCH_FAR_CODE_BASE, FAR_UNITS, far_used, far_back, 0, far_pa },
};
static bool prefer_far;				/* probe_mutex */
struct probe_pool patch_pool = PROBE_POOL_INIT(struct patch, 64);

static uint64_t data_used[DATA_SLOTS / BITS];	/* probe_mutex */
static size_t data_cursor;			/* probe_mutex: where the next search starts */
static LIST_HEAD(retired);			/* probe_mutex: struct patch */
static LIST_HEAD(retired_data);			/* probe_mutex: struct retired_slot */

/* A data slot given back while retired patches might still use it. */
struct retired_slot {
	uint64_t *slot;
	struct list_node node;
};

static bool bit(const uint64_t *map, size_t i)
{
	return (map[i / BITS] >> (i % BITS)) & 1;
}

static void set_bits(uint64_t *map, size_t first, size_t n, bool on)
{
	for (size_t i = first; i < first + n; i++) {
		if (on)
			map[i / BITS] |= 1ull << (i % BITS);
		else
			map[i / BITS] &= ~(1ull << (i % BITS));
	}
}

/*
 * First run of n clear bits in [from, total) that does not cross a
 * multiple of `within` (a patch stays inside one page, so one direct-map
 * alias covers it), or SIZE_MAX.
 */
static size_t find_run_from(const uint64_t *map, size_t from, size_t total, size_t n,
			    size_t within)
{
	for (size_t i = from; i + n <= total;) {
		if (!(i % BITS) && map[i / BITS] == ~0ull) {
			i += BITS;	/* a full word: skip it whole */
			continue;
		}
		if (i / within != (i + n - 1) / within) {
			i = ALIGN_UP(i + 1, within);
			continue;
		}
		size_t k = 0;
		while (k < n && !bit(map, i + k))
			k++;
		if (k == n)
			return i;
		i += k + 1;
	}
	return SIZE_MAX;
}

/* Next fit: search on from where the last search ended, then from the start. */
static size_t find_run(const uint64_t *map, size_t *cursor, size_t total, size_t n,
		       size_t within)
{
	size_t i = find_run_from(map, *cursor, total, n, within);
	if (i == SIZE_MAX)
		i = find_run_from(map, 0, total, n, within);
	if (i != SIZE_MAX)
		*cursor = i + n;
	return i;
}

/* Map the pages of [va, va + len) that are not mapped yet. */
static int map_range(uint64_t va, uint64_t len, unsigned flags)
{
	for (uint64_t page = ALIGN_DOWN(va, PAGE_SIZE); page < va + len; page += PAGE_SIZE) {
		if (arch_translate(page, NULL) != UINT64_MAX)
			continue;
		uint64_t pa = pmm_alloc(0);
		if (pa == PHYS_NONE)
			return -ENOMEM;
		memset(phys_to_virt(pa), 0, PAGE_SIZE);
		if (arch_map_page(page, pa, flags)) {
			pmm_free(pa, 0);
			return -ENOMEM;
		}
	}
	return 0;
}

void probe_set_far_patches(bool far)
{
	mutex_lock(&probe_mutex);
	prefer_far = far && FAR_UNITS > 0;
	mutex_unlock(&probe_mutex);
}

static struct arena *arena_of(uint64_t addr)
{
	for (unsigned i = 0; i < ARRAY_SIZE(arenas); i++)
		if (addr >= arenas[i].base && addr < arenas[i].base + arenas[i].units * CODE_UNIT)
			return &arenas[i];
	return NULL;
}

/* A run of units in a, collecting retired patches once if it is full; SIZE_MAX if none. */
static size_t arena_find(struct arena *a, size_t units, size_t within)
{
	if (!a->units)
		return SIZE_MAX;
	within = within < a->units ? within : a->units;
	size_t first = find_run(a->used, &a->cursor, a->units, units, within);
	if (first == SIZE_MAX) {
		patch_collect();
		first = find_run(a->used, &a->cursor, a->units, units, within);
	}
	return first;
}

struct patch *patch_alloc(uint32_t size)
{
	size_t units = (size + CODE_UNIT - 1) / CODE_UNIT;
	if (!units || units > PATCH_UNITS_MAX)
		return NULL;
	/* A patch of a page or less stays in one page; a function copy may span pages. */
	size_t within = units <= UNITS_PER_PAGE ? UNITS_PER_PAGE : SIZE_MAX;
	struct arena *a = &arenas[prefer_far];
	size_t first = arena_find(a, units, within);
	if (first == SIZE_MAX) {
		a = &arenas[!prefer_far];
		first = arena_find(a, units, within);
		if (first == SIZE_MAX)
			return NULL;
	}
	struct patch *p = probe_pool_alloc(&patch_pool);
	if (!p)
		return NULL;
	p->addr = a->base + first * CODE_UNIT;
	p->size = (uint32_t)(units * CODE_UNIT);
	list_init(&p->node);
	for (uint64_t page = ALIGN_DOWN(p->addr, PAGE_SIZE); page < p->addr + p->size;
	     page += PAGE_SIZE) {
		uint64_t *pa = &a->pa[(page - a->base) / PAGE_SIZE];
		if (*pa)
			continue;
		if (map_range(page, PAGE_SIZE, MAP_EXEC)) {
			probe_pool_free(&patch_pool, p);
			return NULL;
		}
		*pa = arch_translate(page, NULL) | 1;
	}
	set_bits(a->used, first, units, true);
	for (size_t i = 0; i < units; i++)
		WRITE_ONCE(a->back[first + i], (uint8_t)(i + 1));
	return p;
}

bool probe_patch_origin(uint64_t pc, uint64_t *origin)
{
	const struct arena *a = arena_of(pc);
	if (!a)
		return false;
	size_t unit = (pc - a->base) / CODE_UNIT;
	uint8_t back = READ_ONCE(a->back[unit]);
	if (!back)
		return false;
	uint64_t start = a->base + (unit - (back - 1u)) * CODE_UNIT;
	const struct patch_header *h = (const struct patch_header *)(uintptr_t)start;
	bool copy = h->magic == PATCH_COPY_MAGIC;
	if ((h->magic != PATCH_MAGIC && !copy) || h->nmap == 0 ||
	    (!copy && h->nmap > PROBE_PATCH_ORIGINS_MAX))
		return false;
	/* The last entry whose code starts at or before pc (a copy's map is long: halve it). */
	uint32_t off = (uint32_t)(pc - start);
	unsigned lo = 0, hi = h->nmap;
	while (hi - lo > 1) {
		unsigned mid = lo + (hi - lo) / 2;
		if (h->map[mid].code <= off)
			lo = mid;
		else
			hi = mid;
	}
	*origin = h->site + h->map[lo].orig;
	return true;
}

uint8_t *patch_writable(const struct patch *p)
{
	const struct arena *a = arena_of(p->addr);
	uint64_t pa = a->pa[(p->addr - a->base) / PAGE_SIZE] & ~1ull;
	return phys_to_virt(pa + (p->addr & (PAGE_SIZE - 1)));
}

void patch_write(const struct patch *p, uint32_t offset, const void *src, size_t len)
{
	const struct arena *a = arena_of(p->addr);
	const uint8_t *from = src;

	while (len) {
		uint64_t va = p->addr + offset;
		size_t in_page = PAGE_SIZE - (va & (PAGE_SIZE - 1));
		size_t n = len < in_page ? len : in_page;
		uint64_t pa = a->pa[(va - a->base) / PAGE_SIZE] & ~1ull;
		memcpy(phys_to_virt(pa + (va & (PAGE_SIZE - 1))), from, n);
		from += n;
		offset += (uint32_t)n;
		len -= n;
	}
}

static void patch_release(struct patch *p)
{
	struct arena *a = arena_of(p->addr);
	size_t first = (p->addr - a->base) / CODE_UNIT;
	for (size_t i = 0; i < p->size / CODE_UNIT; i++)
		WRITE_ONCE(a->back[first + i], 0);
	set_bits(a->used, first, p->size / CODE_UNIT, false);
	if (p->springboard)
		arch_probe_springboard_free(p->springboard);
	site_state_free(p->state);
	probe_pool_free(&patch_pool, p);
}

void patch_retire(struct patch *p)
{
	if (!p)
		return;
	if (p->state)
		site_state_retire(p->state);
	list_add_tail(&retired, &p->node);
}

/* Data slots and accumulators can go once no retired patch (which might use them) is left. */
static void release_data(void)
{
	if (!list_empty(&retired))
		return;
	accumulators_quiet();
	list_foreach_safe(&retired_data, it, tmp) {
		struct retired_slot *r = list_entry(it, struct retired_slot, node);
		set_bits(data_used, ((uintptr_t)r->slot - PATCH_DATA_BASE) / 8, 1, false);
		list_remove(&r->node);
		kfree(r);
	}
}

void patch_collect(void)
{
	unsigned n = 0;
	list_foreach(&retired, it)
		n++;
	if (!n) {
		release_data();
		return;
	}
	/* Each patch, and the springboard that led to it if it had one. */
	uint64_t *starts = kmalloc(2 * n * sizeof(uint64_t));
	uint64_t *ends = kmalloc(2 * n * sizeof(uint64_t));
	bool *in_use = kzalloc(2 * n * sizeof(bool));
	if (!starts || !ends || !in_use)
		goto out;
	unsigned i = 0;
	list_foreach(&retired, it) {
		struct patch *p = list_entry(it, struct patch, node);
		starts[i] = p->addr;
		ends[i] = p->addr + p->size;
		starts[n + i] = p->springboard;
		ends[n + i++] = p->springboard ? p->springboard + ARCH_PROBE_SPRINGBOARD_LEN : 0;
	}
	code_in_use(starts, ends, 2 * n, in_use);
	i = 0;
	list_foreach_safe(&retired, it, tmp) {
		struct patch *p = list_entry(it, struct patch, node);
		if (!in_use[i] && !in_use[n + i]) {
			list_remove(&p->node);
			patch_release(p);
		}
		i++;
	}
out:
	kfree(starts);
	kfree(ends);
	kfree(in_use);
	release_data();
}

uint64_t *data_alloc(unsigned n)
{
	size_t slot = find_run(data_used, &data_cursor, DATA_SLOTS, n, PAGE_SIZE / 8);
	if (slot == SIZE_MAX)
		return NULL;
	uint64_t va = PATCH_DATA_BASE + slot * 8;
	if (map_range(va, 8 * n, MAP_WRITE))
		return NULL;
	set_bits(data_used, slot, n, true);
	uint64_t *p = (uint64_t *)(uintptr_t)va;
	for (unsigned i = 0; i < n; i++)
		p[i] = 0;
	return p;
}

void data_release(uint64_t *slot, unsigned n)
{
	if (slot)
		set_bits(data_used, ((uintptr_t)slot - PATCH_DATA_BASE) / 8, n, false);
}

void data_free(uint64_t *slot)
{
	struct retired_slot *r;

	if (!slot)
		return;
	r = kzalloc(sizeof(*r));
	if (!r)
		return;	/* leak one slot rather than risk a live patch writing it */
	r->slot = slot;
	list_add_tail(&retired_data, &r->node);
	release_data();
}

/*
 * The DIF compiler's executable memory (scion/dif_jit.h): a patch with
 * no site, in the same arenas, so the code lies within the kernel
 * text's call reach and is freed by the same rule as a patch (retired,
 * then freed once no CPU's pc and no stack word points into it). At
 * most a page: a larger program stays interpreted.
 */
void *dif_jit_code_alloc(size_t bytes, uint64_t *runs, uint8_t **writable)
{
	if (!bytes || bytes > PAGE_SIZE)
		return NULL;
	mutex_lock(&probe_mutex);
	struct patch *p = patch_alloc((uint32_t)bytes);
	mutex_unlock(&probe_mutex);
	if (!p)
		return NULL;
	*runs = p->addr;
	*writable = patch_writable(p);
	return p;
}

void dif_jit_code_free(void *mem)
{
	mutex_lock(&probe_mutex);
	patch_retire(mem);
	mutex_unlock(&probe_mutex);
}
