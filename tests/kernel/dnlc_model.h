/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * An independent model of an LRU name cache for test_dnlc.c: a small
 * array searched linearly, each slot stamped with the time it was last
 * entered or found; the victim is the smallest stamp. It shares no code
 * with kernel/dnlc/ (no hash table, no lists), only the contract of
 * scion/dnlc.h: names longer than DNLC_NAME_LEN are never cached (their
 * lookups count as too long), an enter replaces the key's old entry,
 * ino 0 is a negative entry.
 */
#ifndef TESTS_DNLC_MODEL_H
#define TESTS_DNLC_MODEL_H

#include <scion/dnlc.h>
#include <scion/string.h>

#define DNLC_MODEL_MAX 16

struct dnlc_model_slot {
	bool used;
	uint32_t fs;
	uint64_t dir, ino, stamp;
	size_t len;
	char name[DNLC_NAME_LEN];
};

struct dnlc_model {
	unsigned capacity, used;
	uint64_t clock;
	struct dnlc_stats stats;
	struct dnlc_model_slot slot[DNLC_MODEL_MAX];
};

static inline void dnlc_model_init(struct dnlc_model *m, unsigned capacity)
{
	memset(m, 0, sizeof(*m));
	m->capacity = capacity < DNLC_MODEL_MAX ? capacity : DNLC_MODEL_MAX;
}

static inline struct dnlc_model_slot *dnlc_model_find(struct dnlc_model *m, uint32_t fs,
						      uint64_t dir, const char *name, size_t len)
{
	for (unsigned i = 0; i < m->capacity; i++) {
		struct dnlc_model_slot *s = &m->slot[i];
		if (s->used && s->fs == fs && s->dir == dir && s->len == len &&
		    !memcmp(s->name, name, len))
			return s;
	}
	return NULL;
}

static inline void dnlc_model_clear(struct dnlc_model *m, struct dnlc_model_slot *s)
{
	s->used = false;
	m->used--;
}

/* 1 and *ino on a hit, 0 on a miss, counting as the cache does. */
static inline int dnlc_model_lookup(struct dnlc_model *m, uint32_t fs, uint64_t dir,
				    const char *name, size_t len, uint64_t *ino)
{
	m->stats.lookups++;
	if (len > DNLC_NAME_LEN) {
		m->stats.too_long++;
		return 0;
	}
	struct dnlc_model_slot *s = dnlc_model_find(m, fs, dir, name, len);
	if (!s) {
		m->stats.misses++;
		return 0;
	}
	if (s->ino)
		m->stats.hits++;
	else
		m->stats.negative_hits++;
	s->stamp = ++m->clock;
	*ino = s->ino;
	return 1;
}

static inline void dnlc_model_enter(struct dnlc_model *m, uint32_t fs, uint64_t dir,
				    const char *name, size_t len, uint64_t ino)
{
	if (len > DNLC_NAME_LEN)
		return;
	struct dnlc_model_slot *s = dnlc_model_find(m, fs, dir, name, len);
	if (s)
		dnlc_model_clear(m, s);
	if (m->used == m->capacity) {
		struct dnlc_model_slot *oldest = NULL;
		for (unsigned i = 0; i < m->capacity; i++)
			if (m->slot[i].used && (!oldest || m->slot[i].stamp < oldest->stamp))
				oldest = &m->slot[i];
		dnlc_model_clear(m, oldest);
		m->stats.evictions++;
	}
	for (s = m->slot; s->used; s++)
		;
	*s = (struct dnlc_model_slot){ .used = true, .fs = fs, .dir = dir, .ino = ino,
				       .stamp = ++m->clock, .len = len };
	memcpy(s->name, name, len);
	m->used++;
	m->stats.enters++;
}

static inline void dnlc_model_remove(struct dnlc_model *m, uint32_t fs, uint64_t dir,
				     const char *name, size_t len)
{
	struct dnlc_model_slot *s = len > DNLC_NAME_LEN ? NULL : dnlc_model_find(m, fs, dir, name, len);
	if (s) {
		dnlc_model_clear(m, s);
		m->stats.removes++;
	}
}

static inline void dnlc_model_purge(struct dnlc_model *m, uint32_t fs)
{
	for (unsigned i = 0; i < m->capacity; i++)
		if (m->slot[i].used && m->slot[i].fs == fs) {
			dnlc_model_clear(m, &m->slot[i]);
			m->stats.purges++;
		}
}

#endif
