// SPDX-License-Identifier: BSD-2-Clause
/* Host tests of subtracting reserved ranges from free memory (kernel/mm/ranges.c). */
#include <string.h>
#include "host_test.h"
#include "mm/mm_internal.h"

/* What phys_range_subtract handed out, in call order. */
static struct {
	struct phys_range r[256];
	size_t n;
	bool overrun;
} out;

static void collect(uint64_t start, uint64_t end)
{
	if (out.n == sizeof(out.r) / sizeof(out.r[0])) {
		out.overrun = true;
		return;
	}
	out.r[out.n++] = (struct phys_range){ start, end };
}

static void subtract(uint64_t start, uint64_t end, const struct phys_range *reserved, size_t n)
{
	memset(&out, 0, sizeof(out));
	phys_range_subtract(start, end, reserved, n, collect);
}

static bool got(size_t i, uint64_t start, uint64_t end)
{
	return i < out.n && out.r[i].start == start && out.r[i].end == end;
}

HOST_TEST(ranges_simple_cases)
{
	subtract(0x1000, 0x9000, NULL, 0);
	CHECK(t, out.n == 1 && got(0, 0x1000, 0x9000), "no reserved: the whole range");

	subtract(0x5000, 0x5000, NULL, 0);
	CHECK(t, out.n == 0, "an empty range adds nothing");
	subtract(0x6000, 0x5000, NULL, 0);
	CHECK(t, out.n == 0, "a backwards range adds nothing");

	const struct phys_range all[] = { { 0, 0x10000 } };
	subtract(0x1000, 0x9000, all, 1);
	CHECK(t, out.n == 0, "reserved covers everything");
	const struct phys_range exact[] = { { 0x1000, 0x9000 } };
	subtract(0x1000, 0x9000, exact, 1);
	CHECK(t, out.n == 0, "reserved equals the range");

	const struct phys_range mid[] = { { 0x3000, 0x4000 } };
	subtract(0x1000, 0x9000, mid, 1);
	CHECK(t, out.n == 2 && got(0, 0x1000, 0x3000) && got(1, 0x4000, 0x9000), "a hole in the middle");

	const struct phys_range edges[] = { { 0x8000, 0x20000 }, { 0, 0x2000 } };
	subtract(0x1000, 0x9000, edges, 2);
	CHECK(t, out.n == 1 && got(0, 0x2000, 0x8000), "both ends clipped, unsorted");

	const struct phys_range outside[] = { { 0, 0x1000 }, { 0x9000, 0xa000 }, { 0x20000, 0x30000 } };
	subtract(0x1000, 0x9000, outside, 3);
	CHECK(t, out.n == 1 && got(0, 0x1000, 0x9000), "adjacent and distant ranges outside");
}

HOST_TEST(ranges_overlapping_adjacent_and_empty_reserved)
{
	const struct phys_range overlapping[] = {
		{ 0x5000, 0x7000 }, { 0x3000, 0x6000 }, { 0x6800, 0x7800 },
	};
	subtract(0x1000, 0x9000, overlapping, 3);
	CHECK(t, out.n == 2 && got(0, 0x1000, 0x3000) && got(1, 0x7800, 0x9000),
	      "overlapping chain: %zu pieces", out.n);

	const struct phys_range adjacent[] = { { 0x4000, 0x5000 }, { 0x3000, 0x4000 }, { 0x5000, 0x6000 } };
	subtract(0x1000, 0x9000, adjacent, 3);
	CHECK(t, out.n == 2 && got(0, 0x1000, 0x3000) && got(1, 0x6000, 0x9000),
	      "adjacent ranges act as one");

	const struct phys_range nested[] = { { 0x2000, 0x8000 }, { 0x3000, 0x4000 } };
	subtract(0x1000, 0x9000, nested, 2);
	CHECK(t, out.n == 2 && got(0, 0x1000, 0x2000) && got(1, 0x8000, 0x9000), "nested ranges");

	const struct phys_range empty[] = { { 0x3000, 0x3000 }, { 0x5000, 0x4000 }, { 0, 0 } };
	subtract(0x1000, 0x9000, empty, 3);
	CHECK(t, out.n == 1 && got(0, 0x1000, 0x9000), "empty and backwards reserved ranges: %zu",
	      out.n);

	const struct phys_range mixed[] = { { 0x4000, 0x4000 }, { 0x4000, 0x5000 } };
	subtract(0x1000, 0x9000, mixed, 2);
	CHECK(t, out.n == 2 && got(0, 0x1000, 0x4000) && got(1, 0x5000, 0x9000),
	      "an empty range at the start of a real one");

	const struct phys_range top[] = { { 0xfffffffffffff000ull, UINT64_MAX } };
	subtract(0xffffffff00000000ull, UINT64_MAX, top, 1);
	CHECK(t, out.n == 1 && got(0, 0xffffffff00000000ull, 0xfffffffffffff000ull),
	      "ranges at the top of the address space");
}

static uint64_t rng_state;

static uint64_t rng(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

/* Random inputs against a unit-by-unit model over a small address space. */
HOST_TEST(ranges_random_against_brute_force)
{
	enum { SPACE = 200 };
	static bool want[SPACE], have[SPACE];
	struct phys_range reserved[8];

	rng_state = 0x853c49e6748fea9bull;
	for (int round = 0; round < 20000 && !t->failed; round++) {
		uint64_t start = rng() % SPACE, end = rng() % (SPACE + 1);
		size_t n = rng() % 8;
		for (size_t i = 0; i < n; i++) {
			uint64_t a = rng() % SPACE, len = rng() % 40;
			/* Now and then an empty or backwards range. */
			reserved[i] = rng() % 10 ? (struct phys_range){ a, MIN(a + len, SPACE) }
						 : (struct phys_range){ a, a - MIN(a, len) };
		}
		for (uint64_t u = 0; u < SPACE; u++) {
			bool r = false;
			for (size_t i = 0; i < n; i++)
				r |= u >= reserved[i].start && u < reserved[i].end;
			want[u] = u >= start && u < end && !r;
		}
		subtract(start, end, reserved, n);
		REQUIRE(t, !out.overrun, "too many pieces");
		memset(have, 0, sizeof(have));
		for (size_t k = 0; k < out.n; k++) {
			const struct phys_range *p = &out.r[k];
			REQUIRE(t, p->start < p->end, "round %d: empty piece", round);
			REQUIRE(t, k == 0 || out.r[k - 1].end < p->start,
				"round %d: pieces not ascending and separated", round);
			for (uint64_t u = p->start; u < p->end; u++) {
				REQUIRE(t, u < SPACE, "round %d: piece past the range", round);
				have[u] = true;
			}
		}
		for (uint64_t u = 0; u < SPACE; u++)
			REQUIRE(t, have[u] == want[u], "round %d: unit %llu is %s, should be %s", round,
				(unsigned long long)u, have[u] ? "free" : "not free",
				want[u] ? "free" : "not free");
	}
}
