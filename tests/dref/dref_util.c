// SPDX-License-Identifier: BSD-2-Clause
/*
 * The oracle's small utilities: its source of randomness and a growing
 * text buffer.
 *
 * Randomness is either a seeded generator (splitmix64, so a seed and a
 * program number name one program for good) or the bytes of a fuzz
 * input, read in order and then zeros: a libFuzzer mutation of the input
 * changes the decisions it reaches, and a short input still makes a
 * small, valid program.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "dref.h"

void dref_rng_seed(struct dref_rng *r, uint64_t seed)
{
	*r = (struct dref_rng){ .state = seed };
}

void dref_rng_bytes(struct dref_rng *r, const uint8_t *data, size_t len)
{
	*r = (struct dref_rng){ .data = data, .len = len };
}

uint64_t dref_rng_u64(struct dref_rng *r)
{
	if (r->data) {
		uint64_t v = 0;
		for (int i = 0; i < 8; i++)
			v = v << 8 | (r->pos < r->len ? r->data[r->pos++] : 0);
		return v;
	}
	uint64_t z = (r->state += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

uint32_t dref_below(struct dref_rng *r, uint32_t n)
{
	if (n <= 1)
		return 0;
	if (r->data) {
		/* One byte per small decision, so mutations map to decisions. */
		uint32_t v = r->pos < r->len ? r->data[r->pos++] : 0;
		if (n > 256)
			v = v << 8 | (r->pos < r->len ? r->data[r->pos++] : 0);
		return v % n;
	}
	return (uint32_t)(dref_rng_u64(r) % n);
}

bool dref_chance(struct dref_rng *r, unsigned percent)
{
	return dref_below(r, 100) < percent;
}

uint64_t dref_interesting(struct dref_rng *r)
{
	static const uint64_t edges[] = {
		0, 1, 2, 3, 7, 8, 100, 127, 128, 255, 256, 300, 1000, 32767, 32768, 65535, 65536,
		0x7fffffff, 0x80000000, 0xffffffff, 0x100000000ull, 0x7fffffffffffffffull,
		0x8000000000000000ull, 0xffffffffffffffffull, 0xfffffffffffffffeull,
		0xffffffffffffff80ull, 0xffffffffffff8000ull, 0xffffffff80000000ull,
		0x123456789abcdef0ull,
	};
	switch (dref_below(r, 4)) {
	case 0:
		return dref_below(r, 20);
	case 1:
		return (uint64_t)-(int64_t)dref_below(r, 20);
	case 2:
		return edges[dref_below(r, sizeof(edges) / sizeof(edges[0]))];
	default:
		return dref_rng_u64(r);
	}
}

void dref_printf(struct dref_buf *b, const char *fmt, ...)
{
	va_list ap;
	for (;;) {
		size_t room = b->cap - b->len;
		va_start(ap, fmt);
		int n = vsnprintf(b->text ? b->text + b->len : NULL, room, fmt, ap);
		va_end(ap);
		if (n < 0)
			abort();
		if ((size_t)n < room) {
			b->len += (size_t)n;
			return;
		}
		size_t cap = b->cap ? b->cap * 2 : 4096;
		while (cap - b->len <= (size_t)n)
			cap *= 2;
		char *t = realloc(b->text, cap);
		if (!t)
			abort();
		b->text = t;
		b->cap = cap;
	}
}

void dref_buf_free(struct dref_buf *b)
{
	free(b->text);
	*b = (struct dref_buf){ 0 };
}
