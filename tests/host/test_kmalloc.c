// SPDX-License-Identifier: BSD-2-Clause
/* Host tests of the kernel heap (kernel/mm/kmalloc.c) on top of the page allocator. */
#include <stdlib.h>
#include <string.h>
#include "host_test.h"
#include <scion/mm.h>
#include "mm/mm_internal.h"

#define ARENA_PAGES 4096ull

/* A fresh heap over npages frames; frame 0 stays reserved. */
static void setup(uint64_t npages)
{
	host_heap_reset(npages);
}

/* Counters are global and survive kmalloc_init: tests compare against a snapshot. */
static struct kmalloc_stats kstats(void)
{
	struct kmalloc_stats s;
	kmalloc_get_stats(&s);
	return s;
}

static uint64_t pmm_free_pages(void)
{
	struct pmm_stats s;
	pmm_get_stats(&s);
	return s.free_pages;
}

/* What the heap charges for size bytes: the class size, or whole pages. */
static uint64_t charged(size_t size)
{
	if (size <= 2048) {
		uint64_t c = 16;
		while (c < size)
			c <<= 1;
		return c;
	}
	uint64_t bytes = PAGE_SIZE;
	while (bytes < size)
		bytes <<= 1;
	return bytes;
}

static void fill(void *p, size_t size, uint8_t seed)
{
	uint8_t *b = p;
	for (size_t i = 0; i < size; i++)
		b[i] = (uint8_t)(seed + i * 7);
}

static bool intact(const void *p, size_t size, uint8_t seed)
{
	const uint8_t *b = p;
	for (size_t i = 0; i < size; i++)
		if (b[i] != (uint8_t)(seed + i * 7))
			return false;
	return true;
}

static bool in_arena(const void *p, size_t size)
{
	uintptr_t a = (uintptr_t)p;
	return a >= host_phys_base && a + size <= host_phys_base + host_phys_size;
}

struct live {
	uint8_t *p;
	size_t size;
};

HOST_TEST(kmalloc_every_size_aligned_disjoint_preserved)
{
	enum { RING = 64 };
	struct live ring[RING] = { 0 };

	setup(ARENA_PAGES);
	for (size_t size = 1; size <= 8192 + RING; size++) {
		struct live *slot = &ring[size % RING];
		if (slot->p) {
			REQUIRE(t, intact(slot->p, slot->size, (uint8_t)slot->size),
				"contents of a %zu-byte object changed", slot->size);
			kfree(slot->p);
			slot->p = NULL;
		}
		if (size > 8192)
			continue;
		uint8_t *p = kmalloc(size);
		REQUIRE(t, p, "kmalloc(%zu) failed", size);
		REQUIRE(t, in_arena(p, size), "kmalloc(%zu) outside the heap", size);
		REQUIRE(t, (uintptr_t)p % 16 == 0, "kmalloc(%zu) = %p not 16-aligned", size, (void *)p);
		if (size >= 4096)
			REQUIRE(t, (uintptr_t)p % PAGE_SIZE == 0, "kmalloc(%zu) not page aligned", size);
		for (size_t k = 0; k < RING; k++)
			if (ring[k].p)
				REQUIRE(t, p + size <= ring[k].p || ring[k].p + ring[k].size <= p,
					"kmalloc(%zu) overlaps a live %zu-byte object", size, ring[k].size);
		fill(p, size, (uint8_t)size);
		*slot = (struct live){ p, size };
	}
}

HOST_TEST(kmalloc_large_sizes)
{
	static const size_t sizes[] = { 8193, 16384, 65536 + 1, 1 << 20, 4 << 20 };

	setup(ARENA_PAGES);
	struct kmalloc_stats before = kstats();
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		uint8_t *p = kmalloc(sizes[i]);
		REQUIRE(t, p && in_arena(p, sizes[i]), "kmalloc(%zu)", sizes[i]);
		CHECK(t, (uintptr_t)p % PAGE_SIZE == 0, "kmalloc(%zu) page aligned", sizes[i]);
		struct kmalloc_stats s = kstats();
		CHECK(t, s.bytes_in_use - before.bytes_in_use == charged(sizes[i]),
		      "kmalloc(%zu) charged %llu", sizes[i],
		      (unsigned long long)(s.bytes_in_use - before.bytes_in_use));
		fill(p, sizes[i], 3);
		CHECK(t, intact(p, sizes[i], 3), "contents of %zu bytes", sizes[i]);
		kfree(p);
		CHECK(t, kstats().bytes_in_use == before.bytes_in_use, "freed %zu", sizes[i]);
	}
	CHECK(t, kmalloc((4 << 20) + 1) == NULL, "more than the largest page block");
	CHECK(t, kmalloc((size_t)1 << 40) == NULL, "a terabyte");
	CHECK(t, kmalloc(SIZE_MAX) == NULL, "SIZE_MAX");
	CHECK(t, kmalloc(SIZE_MAX - PAGE_SIZE) == NULL, "SIZE_MAX - a page");
	CHECK(t, kzalloc(SIZE_MAX) == NULL, "kzalloc(SIZE_MAX)");
	CHECK(t, pmm_free_pages() == ARENA_PAGES - 1, "every page back with the allocator");
}

HOST_TEST(kmalloc_zero_null_and_kzalloc)
{
	setup(ARENA_PAGES);
	void *a = kmalloc(0), *b = kmalloc(0);
	CHECK(t, a && b && a != b, "kmalloc(0) gives distinct objects");
	kfree(a);
	kfree(b);
	CHECK(t, !EXPECT_PANIC(kfree(NULL)), "kfree(NULL) is ignored");

	/* Dirty some objects, free them, and ask for zeroed ones of the same class. */
	uint8_t *dirty[8];
	for (int i = 0; i < 8; i++) {
		dirty[i] = kmalloc(100);
		REQUIRE(t, dirty[i], "kmalloc(100)");
		memset(dirty[i], 0xee, 100);
	}
	for (int i = 0; i < 8; i++)
		kfree(dirty[i]);
	for (int i = 0; i < 8; i++) {
		uint8_t *z = kzalloc(100);
		REQUIRE(t, z, "kzalloc(100)");
		for (int k = 0; k < 100; k++)
			REQUIRE(t, z[k] == 0, "kzalloc byte %d is 0x%02x", k, z[k]);
		kfree(z);
	}
	uint8_t *big = kzalloc(3 * PAGE_SIZE);
	REQUIRE(t, big, "kzalloc of 3 pages");
	for (size_t k = 0; k < 3 * PAGE_SIZE; k++)
		REQUIRE(t, big[k] == 0, "large kzalloc byte %zu", k);
	kfree(big);
}

HOST_TEST(kmalloc_stats_return_to_zero)
{
	static const size_t sizes[] = { 1, 16, 17, 100, 256, 1000, 2048, 2049, 4096, 5000, 20000 };
	void *p[sizeof(sizes) / sizeof(sizes[0])][5];

	setup(ARENA_PAGES);
	struct kmalloc_stats before = kstats();
	uint64_t expect = 0;
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
		for (int k = 0; k < 5; k++) {
			p[i][k] = kmalloc(sizes[i]);
			REQUIRE(t, p[i][k], "kmalloc(%zu)", sizes[i]);
			expect += charged(sizes[i]);
		}
	struct kmalloc_stats mid = kstats();
	CHECK(t, mid.bytes_in_use - before.bytes_in_use == expect, "in use %llu, expected %llu",
	      (unsigned long long)(mid.bytes_in_use - before.bytes_in_use),
	      (unsigned long long)expect);
	CHECK(t, mid.allocs - before.allocs == 55, "allocs counted");
	CHECK(t, mid.large_pages - before.large_pages == 5 * (1 + 1 + 2 + 8), "large pages %llu",
	      (unsigned long long)(mid.large_pages - before.large_pages));
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
		for (int k = 0; k < 5; k++)
			kfree(p[i][k]);
	struct kmalloc_stats end = kstats();
	CHECK(t, end.bytes_in_use == before.bytes_in_use, "bytes_in_use back to the start");
	CHECK(t, end.frees - before.frees == 55, "frees counted");
	CHECK(t, end.large_pages == before.large_pages, "large pages returned");
}

HOST_TEST(kmalloc_free_slabs_go_back_to_pmm)
{
	enum { N = 1000 };
	static void *objs[N];

	setup(ARENA_PAGES);
	uint64_t free_before = pmm_free_pages();
	struct kmalloc_stats before = kstats();
	for (int i = 0; i < N; i++) {
		objs[i] = kmalloc(64);
		REQUIRE(t, objs[i], "kmalloc(64) #%d", i);
	}
	uint64_t slabs = kstats().slab_pages - before.slab_pages;
	CHECK(t, slabs == (N + 63) / 64, "%llu slab pages for %d 64-byte objects",
	      (unsigned long long)slabs, N);
	CHECK(t, free_before - pmm_free_pages() == slabs, "slab pages come from pmm");

	/* Free in an interleaved order so that slabs empty at different times. */
	for (int i = 0; i < N; i += 2)
		kfree(objs[i]);
	for (int i = 1; i < N; i += 2)
		kfree(objs[i]);
	struct kmalloc_stats end = kstats();
	CHECK(t, end.slab_pages - before.slab_pages <= 1, "%llu empty slab pages kept",
	      (unsigned long long)(end.slab_pages - before.slab_pages));
	CHECK(t, free_before - pmm_free_pages() == end.slab_pages - before.slab_pages,
	      "empty slab pages are back with pmm");
}

HOST_TEST(kmalloc_misuse_panics)
{
	static uint8_t not_heap[64] __attribute__((aligned(16)));
	uint8_t on_stack[64] __attribute__((aligned(16)));

	setup(ARENA_PAGES);
	uint8_t *a = kmalloc(64), *keep = kmalloc(64);
	kfree(a);
	CHECK(t, EXPECT_PANIC(kfree(a)), "double free of a small object");
	CHECK(t, strstr(host_last_panic, "double free"), "message: %s", host_last_panic);

	uint8_t *b = kmalloc(64);
	CHECK(t, EXPECT_PANIC(kfree(b + 16)), "pointer into the middle of a 64-byte object");
	CHECK(t, EXPECT_PANIC(kfree(b + 1)), "unaligned pointer into an object");
	CHECK(t, !EXPECT_PANIC(kfree(b)), "the object itself frees after refusals");

	uint8_t *big = kmalloc(3 * PAGE_SIZE);
	CHECK(t, EXPECT_PANIC(kfree(big + 16)), "pointer into the first page of a large block");
	CHECK(t, EXPECT_PANIC(kfree(big + PAGE_SIZE)), "pointer to a later page of a large block");
	kfree(big);
	CHECK(t, EXPECT_PANIC(kfree(big)), "double free of a large block");

	CHECK(t, EXPECT_PANIC(kfree(not_heap)), "a global");
	CHECK(t, EXPECT_PANIC(kfree(on_stack)), "a stack buffer");
	CHECK(t, EXPECT_PANIC(kfree((void *)host_phys_base)), "a reserved frame in the arena");
	CHECK(t, EXPECT_PANIC(kfree((void *)(host_phys_base + host_phys_size))), "just past the heap");
	uint64_t page = pmm_alloc(0);
	CHECK(t, EXPECT_PANIC(kfree(phys_to_virt(page))), "a page from pmm_alloc");
	pmm_free(page, 0);
	CHECK(t, EXPECT_PANIC(kfree(phys_to_virt(page))), "a free page");

	/* A live object that happens to hold the free marker is still freed normally. */
	uint8_t *c = kmalloc(32);
	memset(c, 0, 32);
	const uint64_t magic = 0x5c10f4eef4eef4eeull;
	memcpy(c + 8, &magic, sizeof(magic));
	CHECK(t, !EXPECT_PANIC(kfree(c)), "live object holding the free marker");
	kfree(keep);
}

HOST_TEST(kmalloc_exhaustion_returns_null)
{
	enum { MAXOBJ = 64 * 64 };
	static void *objs[MAXOBJ];

	setup(64);	/* 63 usable frames */
	size_t n = 0;
	while (n < MAXOBJ && (objs[n] = kmalloc(64)) != NULL)
		n++;
	CHECK(t, n == 63 * 64, "%zu 64-byte objects from 63 frames", n);
	CHECK(t, kmalloc(64) == NULL, "still NULL");
	CHECK(t, kmalloc(16) == NULL, "another class needs a page too");
	CHECK(t, kmalloc(8192) == NULL, "large allocation");
	for (size_t i = 0; i < n; i++)
		kfree(objs[i]);
	void *p = kmalloc(16 * PAGE_SIZE);
	CHECK(t, p != NULL, "memory is usable again after freeing");
	kfree(p);
}
