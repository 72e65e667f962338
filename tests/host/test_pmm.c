// SPDX-License-Identifier: BSD-2-Clause
/* Host tests of the buddy page allocator (kernel/mm/pmm.c) against a shadow model. */
#include <stdlib.h>
#include <string.h>
#include "host_test.h"
#include <scion/mm.h>

#define ARENA_PAGES 4096ull	/* 16 MiB: four blocks of the largest order */
#define MiB (1ull << 20)

static struct page *descriptors;

/* A fresh allocator over an arena of npages frames, all reserved. */
static void setup(uint64_t npages)
{
	host_arena_reset(npages * PAGE_SIZE);
	free(descriptors);
	descriptors = calloc(npages, sizeof(*descriptors));
	pmm_init(descriptors, npages);
}

static struct pmm_stats stats(void)
{
	struct pmm_stats s;
	pmm_get_stats(&s);
	return s;
}

static uint64_t pages_in_free_blocks(const struct pmm_stats *s)
{
	uint64_t n = 0;
	for (unsigned o = 0; o <= PMM_MAX_ORDER; o++)
		n += s->free_blocks[o] << o;
	return n;
}

HOST_TEST(pmm_every_order_aligned)
{
	setup(ARENA_PAGES);
	pmm_add_free(0, ARENA_PAGES * PAGE_SIZE);
	struct pmm_stats s = stats();
	CHECK(t, s.managed_pages == ARENA_PAGES && s.free_pages == ARENA_PAGES, "all managed");
	CHECK(t, s.free_blocks[PMM_MAX_ORDER] == 4, "four 4 MiB blocks, got %llu",
	      (unsigned long long)s.free_blocks[PMM_MAX_ORDER]);
	CHECK(t, s.max_pfn == ARENA_PAGES, "max_pfn");

	uint64_t used = 0;
	for (unsigned order = 0; order <= PMM_MAX_ORDER; order++) {
		uint64_t pa = pmm_alloc(order);
		REQUIRE(t, pa != PHYS_NONE, "order %u failed", order);
		CHECK(t, pa % (PAGE_SIZE << order) == 0, "order %u block at 0x%llx misaligned", order,
		      (unsigned long long)pa);
		CHECK(t, pa + (PAGE_SIZE << order) <= ARENA_PAGES * PAGE_SIZE, "order %u past the end",
		      order);
		struct page *head = pmm_page(pa);
		CHECK(t, head && head->kind == PAGE_ALLOCATED && head->order == order, "head marked");
		used += 1ull << order;
		s = stats();
		CHECK(t, s.free_pages == ARENA_PAGES - used, "free_pages after order %u", order);
		CHECK(t, pages_in_free_blocks(&s) == s.free_pages, "free blocks add up after order %u",
		      order);
	}
	CHECK(t, pmm_alloc(PMM_MAX_ORDER + 1) == PHYS_NONE, "order above the maximum");
	CHECK(t, pmm_page(ARENA_PAGES * PAGE_SIZE) == NULL, "no descriptor past max_pfn");
}

HOST_TEST(pmm_unaligned_and_disjoint_ranges)
{
	setup(ARENA_PAGES);
	/* Frames 2..8: the partial frames at both ends are not handed over. */
	pmm_add_free(0x1234, 0x9567);
	struct pmm_stats s = stats();
	CHECK(t, s.managed_pages == 7, "7 whole frames, got %llu", (unsigned long long)s.managed_pages);
	CHECK(t, s.free_blocks[0] == 1 && s.free_blocks[1] == 1 && s.free_blocks[2] == 1 &&
		 s.free_blocks[3] == 0, "blocks 2-3, 4-7, 8");

	pmm_add_free(0x20000, 0x20fff);		/* less than a frame: nothing */
	pmm_add_free(0x30000, 0x30000);		/* empty */
	pmm_add_free(0x50000, 0x40000);		/* backwards */
	CHECK(t, stats().managed_pages == 7, "empty ranges add nothing");

	pmm_add_free(0x9000, 0x10000);		/* frames 9..15, adjacent: merges up */
	pmm_add_free(1 * MiB, 3 * MiB + 0x800);
	pmm_add_free(15 * MiB, 64 * MiB);	/* clipped at max_pfn */
	s = stats();
	uint64_t expect = 14 + 512 + 256;
	CHECK(t, s.managed_pages == expect, "managed %llu, expected %llu",
	      (unsigned long long)s.managed_pages, (unsigned long long)expect);
	CHECK(t, pages_in_free_blocks(&s) == expect, "free blocks add up");

	/* Every page handed out lies in one of the ranges, and none twice. */
	static bool taken[ARENA_PAGES];
	memset(taken, 0, sizeof(taken));
	uint64_t n = 0, pa;
	while ((pa = pmm_alloc(0)) != PHYS_NONE) {
		uint64_t pfn = pa / PAGE_SIZE;
		bool inside = (pfn >= 2 && pfn < 16) || (pfn >= 256 && pfn < 768) || pfn >= 3840;
		REQUIRE(t, inside, "frame %llu is not in a free range", (unsigned long long)pfn);
		REQUIRE(t, !taken[pfn], "frame %llu handed out twice", (unsigned long long)pfn);
		taken[pfn] = true;
		n++;
	}
	CHECK(t, n == expect, "%llu frames allocated, expected %llu", (unsigned long long)n,
	      (unsigned long long)expect);
	CHECK(t, stats().free_pages == 0, "nothing left");
}

/* A range at the very top of the address space must not wrap round to frame 0. */
HOST_TEST(pmm_add_free_near_top_of_address_space)
{
	setup(64);
	pmm_add_free(UINT64_MAX - 100, UINT64_MAX);
	pmm_add_free(UINT64_MAX - PAGE_SIZE + 2, UINT64_MAX);
	CHECK(t, stats().managed_pages == 0, "%llu frames added from a range far past max_pfn",
	      (unsigned long long)stats().managed_pages);
}

HOST_TEST(pmm_exhaustion)
{
	setup(ARENA_PAGES);
	pmm_add_free(0, ARENA_PAGES * PAGE_SIZE);
	for (int i = 0; i < 4; i++)
		CHECK(t, pmm_alloc(PMM_MAX_ORDER) != PHYS_NONE, "4 MiB block %d", i);
	CHECK(t, pmm_alloc(PMM_MAX_ORDER) == PHYS_NONE, "a fifth 4 MiB block");
	for (unsigned o = 0; o <= PMM_MAX_ORDER; o++)
		CHECK(t, pmm_alloc(o) == PHYS_NONE, "order %u from an empty allocator", o);

	setup(16);
	pmm_add_free(0, 16 * PAGE_SIZE);
	CHECK(t, pmm_alloc(5) == PHYS_NONE, "order 5 from 16 frames");
	CHECK(t, pmm_alloc(4) == 0, "the one order-4 block");
	CHECK(t, pmm_alloc(0) == PHYS_NONE, "then nothing");
	pmm_free(0, 4);
	CHECK(t, stats().free_blocks[4] == 1, "back as one block");
}

struct live_block {
	uint64_t phys;
	unsigned order;
};

static uint64_t rng_state;

static uint64_t rng(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

/* True when some aligned 2^order run of frames is managed and free in the model. */
static bool model_has_free_block(const bool *managed, const bool *used, unsigned order)
{
	uint64_t n = 1ull << order;
	for (uint64_t pfn = 0; pfn + n <= ARENA_PAGES; pfn += n) {
		bool all_free = true;
		for (uint64_t i = 0; i < n && all_free; i++)
			all_free = managed[pfn + i] && !used[pfn + i];
		if (all_free)
			return true;
	}
	return false;
}

HOST_TEST(pmm_random_against_shadow_model)
{
	static bool managed[ARENA_PAGES], used[ARENA_PAGES];
	static struct live_block live[600];
	static const uint64_t ranges[][2] = {
		{ 0x3123, 0x80000 }, { 1 * MiB, 5 * MiB - 0x800 }, { 6 * MiB, 16 * MiB },
	};

	setup(ARENA_PAGES);
	memset(managed, 0, sizeof(managed));
	memset(used, 0, sizeof(used));
	for (size_t r = 0; r < 3; r++) {
		pmm_add_free(ranges[r][0], ranges[r][1]);
		for (uint64_t pfn = (ranges[r][0] + PAGE_SIZE - 1) / PAGE_SIZE;
		     pfn < ranges[r][1] / PAGE_SIZE; pfn++)
			managed[pfn] = true;
	}
	const struct pmm_stats initial = stats();
	uint64_t nmanaged = 0;
	for (uint64_t i = 0; i < ARENA_PAGES; i++)
		nmanaged += managed[i];
	REQUIRE(t, initial.managed_pages == nmanaged, "managed %llu, model %llu",
		(unsigned long long)initial.managed_pages, (unsigned long long)nmanaged);

	size_t nlive = 0;
	uint64_t used_pages = 0, failures = 0;
	rng_state = 0x2545f4914f6cdd1dull;
	for (int step = 0; step < 20000; step++) {
		uint64_t r = rng();
		if (nlive < 600 && r % 5 < 3) {
			/* Small orders are common, large ones rare. */
			unsigned order = (unsigned)__builtin_ctzll(rng() | (1ull << PMM_MAX_ORDER));
			uint64_t pa = pmm_alloc(order);
			if (pa == PHYS_NONE) {
				failures++;
				REQUIRE(t, !model_has_free_block(managed, used, order),
					"order %u refused with a free aligned block in the model", order);
				continue;
			}
			uint64_t pfn = pa / PAGE_SIZE, n = 1ull << order;
			REQUIRE(t, pfn % n == 0, "block 0x%llx misaligned for order %u",
				(unsigned long long)pa, order);
			for (uint64_t i = 0; i < n; i++) {
				REQUIRE(t, pfn + i < ARENA_PAGES && managed[pfn + i],
					"frame %llu is not managed", (unsigned long long)(pfn + i));
				REQUIRE(t, !used[pfn + i], "frame %llu in two live blocks",
					(unsigned long long)(pfn + i));
				used[pfn + i] = true;
			}
			live[nlive++] = (struct live_block){ pa, order };
			used_pages += n;
		} else if (nlive) {
			size_t k = (size_t)(r >> 8) % nlive;
			pmm_free(live[k].phys, live[k].order);
			uint64_t pfn = live[k].phys / PAGE_SIZE, n = 1ull << live[k].order;
			for (uint64_t i = 0; i < n; i++)
				used[pfn + i] = false;
			used_pages -= n;
			live[k] = live[--nlive];
		}
		if (step % 97 == 0) {
			struct pmm_stats s = stats();
			REQUIRE(t, s.free_pages == nmanaged - used_pages, "free_pages %llu, model %llu",
				(unsigned long long)s.free_pages,
				(unsigned long long)(nmanaged - used_pages));
			REQUIRE(t, pages_in_free_blocks(&s) == s.free_pages, "free blocks do not add up");
			REQUIRE(t, s.managed_pages == nmanaged, "managed_pages changed");
		}
	}
	CHECK(t, failures > 0, "the sequence never exhausted an order; make it harder");

	while (nlive) {
		nlive--;
		pmm_free(live[nlive].phys, live[nlive].order);
	}
	struct pmm_stats end = stats();
	CHECK(t, end.free_pages == initial.free_pages, "all pages free again");
	for (unsigned o = 0; o <= PMM_MAX_ORDER; o++)
		CHECK(t, end.free_blocks[o] == initial.free_blocks[o],
		      "order %u: %llu free blocks, %llu at the start", o,
		      (unsigned long long)end.free_blocks[o], (unsigned long long)initial.free_blocks[o]);
}

HOST_TEST(pmm_misuse_panics)
{
	setup(ARENA_PAGES);
	pmm_add_free(1 * MiB, 8 * MiB);

	uint64_t a = pmm_alloc(0);
	pmm_free(a, 0);
	CHECK(t, EXPECT_PANIC(pmm_free(a, 0)), "double free of an order-0 block");
	CHECK(t, strstr(host_last_panic, "double free"), "message: %s", host_last_panic);

	uint64_t b = pmm_alloc(2);
	CHECK(t, EXPECT_PANIC(pmm_free(b, 1)), "freeing with a smaller order");
	CHECK(t, EXPECT_PANIC(pmm_free(b, 3)), "freeing with a larger order");
	CHECK(t, EXPECT_PANIC(pmm_free(b + PAGE_SIZE, 0)), "freeing an interior page");
	CHECK(t, EXPECT_PANIC(pmm_free(b + 2 * PAGE_SIZE, 1)), "freeing an interior half");
	CHECK(t, EXPECT_PANIC(pmm_free(b + 0x10, 2)), "freeing an unaligned address");
	CHECK(t, EXPECT_PANIC(pmm_free(b, PMM_MAX_ORDER + 1)), "an order above the maximum");
	CHECK(t, EXPECT_PANIC(pmm_free(0, 0)), "freeing a reserved frame");
	CHECK(t, EXPECT_PANIC(pmm_free(ARENA_PAGES * PAGE_SIZE, 0)), "freeing past max_pfn");
	CHECK(t, !EXPECT_PANIC(pmm_free(b, 2)), "the right free still works after refusals");
	CHECK(t, stats().free_pages == stats().managed_pages, "and everything is free");

	/* A block freed and merged into its buddy is still a double free. */
	uint64_t c = pmm_alloc(0), d = pmm_alloc(0);
	REQUIRE(t, (c ^ d) == PAGE_SIZE, "two buddies expected");
	pmm_free(c, 0);
	pmm_free(d, 0);
	CHECK(t, EXPECT_PANIC(pmm_free(c, 0)), "double free after merging (first buddy)");
	CHECK(t, EXPECT_PANIC(pmm_free(d, 0)), "double free after merging (second buddy)");
}

HOST_TEST(pmm_adding_a_range_twice_panics)
{
	setup(ARENA_PAGES);
	pmm_add_free(1 * MiB, 2 * MiB);
	CHECK(t, EXPECT_PANIC(pmm_add_free(1 * MiB, 2 * MiB)), "the same range");
	CHECK(t, strstr(host_last_panic, "twice"), "message: %s", host_last_panic);

	setup(ARENA_PAGES);
	pmm_add_free(1 * MiB, 2 * MiB);
	CHECK(t, EXPECT_PANIC(pmm_add_free(2 * MiB - PAGE_SIZE, 3 * MiB)), "overlapping by a frame");

	setup(ARENA_PAGES);
	pmm_add_free(1 * MiB, 2 * MiB);
	uint64_t pa = pmm_alloc(3);
	CHECK(t, EXPECT_PANIC(pmm_add_free(pa, pa + PAGE_SIZE)), "adding an allocated frame");
}
