// SPDX-License-Identifier: BSD-2-Clause
/*
 * Dynamic variable space: thread-local variables (self->x, keyed by the
 * thread id) and associative arrays (keyed by a tuple), allocated from
 * one bounded pool per session. When the pool is exhausted a store
 * fails and the caller counts a dynamic variable drop; nothing else is
 * lost. Storing zero deletes an element and returns its memory.
 *
 * Entries come from size classes (powers of two from 32 bytes): a
 * freed entry goes on its class's free list, a new one takes from that
 * list or else from the pool's unused bottom. Lookups hash (scope, id,
 * key) into a bucket array of DYNVAR_BUCKETS chains.
 *
 * The storage of a variable held by reference (a struct or array value)
 * is taken from the pool's top instead, never freed, and its entry's
 * value is the address of that storage. So everything a program may
 * write in the space is the one range [top, size), which holds no
 * entry, key or link: the kernel never reads its own pointers from
 * memory a program can write.
 *
 * Lock: one leaf spinlock per space, taken with interrupts masked in
 * probe context; it guards every field below it.
 */
#include <scion/hash.h>
#include <scion/mm.h>
#include <scion/string.h>
#include <scion/spinlock.h>
#include "trace_internal.h"

#define DYNVAR_BUCKETS 1024	/* a power of two */
#define DYNVAR_MIN_CLASS 5	/* 32 bytes */
#define DYNVAR_CLASSES 10	/* up to 16 KiB */

struct dynvar {
	struct dynvar *next;		/* bucket chain, or free list */
	uint32_t hash;
	uint16_t id;
	uint8_t scope;
	uint8_t class;
	uint32_t keylen;
	uint32_t valbytes;
	/* key bytes, padded to 8, then the value */
};

struct dynvar_space {
	struct spinlock lock;
	uint8_t *pool;			/* set once */
	uint32_t size;			/* set once */
	uint32_t used;			/* lock: bytes of entries handed out from the bottom */
	uint32_t top;			/* lock (written), atomic (read): [top, size) is the
					   storage of variables held by reference */
	uint32_t live;			/* lock: entries in the table */
	struct dynvar *free[DYNVAR_CLASSES];	/* lock */
	struct dynvar *bucket[DYNVAR_BUCKETS];	/* lock */
};

struct dynvar_space *dynvar_create(uint32_t bytes)
{
	struct dynvar_space *d = kzalloc(sizeof(*d));
	if (!d)
		return NULL;
	d->pool = kmalloc(bytes);
	if (!d->pool) {
		kfree(d);
		return NULL;
	}
	d->size = d->top = bytes & ~7u;	/* the storage at the top stays 8-aligned */
	spin_init(&d->lock, "trace-dynvar");
	return d;
}

void dynvar_destroy(struct dynvar_space *d)
{
	if (!d)
		return;
	kfree(d->pool);
	kfree(d);
}

irqflags_t dynvar_lock(struct dynvar_space *d)
{
	return spin_lock_irqsave(&d->lock);
}

void dynvar_unlock(struct dynvar_space *d, irqflags_t f)
{
	spin_unlock_irqrestore(&d->lock, f);
}

uint32_t dynvar_count(struct dynvar_space *d)
{
	return __atomic_load_n(&d->live, __ATOMIC_RELAXED);
}

static uint32_t hash_of(uint8_t scope, uint16_t id, const uint8_t *key, uint32_t keylen)
{
	return hash_bytes((uint64_t)scope << 16 | id, key, keylen);
}

static uint8_t *key_of(struct dynvar *v)
{
	return (uint8_t *)(v + 1);
}

static void *value_of(struct dynvar *v)
{
	return key_of(v) + ((v->keylen + 7u) & ~7u);
}

static struct dynvar *alloc_entry(struct dynvar_space *d, uint32_t bytes)
{
	unsigned class = 0;
	while (class < DYNVAR_CLASSES && (1u << (DYNVAR_MIN_CLASS + class)) < bytes)
		class++;
	if (class == DYNVAR_CLASSES)
		return NULL;
	struct dynvar *v = d->free[class];
	if (v) {
		d->free[class] = v->next;
	} else {
		uint32_t size = 1u << (DYNVAR_MIN_CLASS + class);
		if (d->top - d->used < size)
			return NULL;
		v = (struct dynvar *)(d->pool + d->used);
		d->used += size;
	}
	v->class = (uint8_t)class;
	return v;
}

void *dynvar_lookup(struct dynvar_space *d, uint8_t scope, uint16_t id, const uint8_t *key,
		    uint32_t keylen, uint32_t valbytes, bool create)
{
	uint32_t h = hash_of(scope, id, key, keylen);
	struct dynvar **head = &d->bucket[h & (DYNVAR_BUCKETS - 1)];

	for (struct dynvar *v = *head; v; v = v->next)
		if (v->hash == h && v->scope == scope && v->id == id && v->keylen == keylen &&
		    v->valbytes >= valbytes && !memcmp(key_of(v), key, keylen))
			return value_of(v);
	if (!create)
		return NULL;
	uint32_t bytes = (uint32_t)sizeof(struct dynvar) + ((keylen + 7u) & ~7u) + valbytes;
	struct dynvar *v = alloc_entry(d, bytes);
	if (!v)
		return NULL;
	v->hash = h;
	v->scope = scope;
	v->id = id;
	v->keylen = keylen;
	v->valbytes = valbytes;
	memcpy(key_of(v), key, keylen);
	memset(value_of(v), 0, valbytes);
	v->next = *head;
	*head = v;
	d->live++;
	return value_of(v);
}

void *dynvar_lookup_byref(struct dynvar_space *d, uint8_t scope, uint16_t id,
			  const uint8_t *key, uint32_t keylen, uint32_t valbytes)
{
	uint8_t **slot = dynvar_lookup(d, scope, id, key, keylen, sizeof(uint8_t *), true);
	if (!slot)
		return NULL;
	if (*slot)
		return *slot;
	/* A new entry, or one whose storage did not fit before: take it from the top. */
	uint32_t bytes = (valbytes + 7u) & ~7u;
	if (bytes > d->top - d->used)
		return NULL;
	uint32_t top = d->top - bytes;
	memset(d->pool + top, 0, bytes);
	__atomic_store_n(&d->top, top, __ATOMIC_RELEASE);
	*slot = d->pool + top;
	return *slot;
}

uint32_t dynvar_byref_area(struct dynvar_space *d, const uint8_t **base)
{
	uint32_t top = __atomic_load_n(&d->top, __ATOMIC_ACQUIRE);
	*base = d->pool + top;
	return d->size - top;
}

void dynvar_delete(struct dynvar_space *d, uint8_t scope, uint16_t id, const uint8_t *key,
		   uint32_t keylen)
{
	uint32_t h = hash_of(scope, id, key, keylen);
	struct dynvar **link = &d->bucket[h & (DYNVAR_BUCKETS - 1)];

	for (struct dynvar *v = *link; v; link = &v->next, v = v->next) {
		if (v->hash != h || v->scope != scope || v->id != id || v->keylen != keylen ||
		    memcmp(key_of(v), key, keylen))
			continue;
		*link = v->next;
		v->next = d->free[v->class];
		d->free[v->class] = v;
		d->live--;
		return;
	}
}
