// SPDX-License-Identifier: BSD-2-Clause
/*
 * Record data and the recordings the kernel keeps (scion/record.h).
 *
 * Records live in chunks of REC_CHUNK_BYTES, appended in order; a record
 * never straddles two chunks, so a cursor hands out whole records in
 * place. All chunks together are bounded by the store's limit (an eighth
 * of memory, at least REC_STORE_MIN_BYTES), so a long recording fails
 * with -ENOMEM instead of starving the kernel.
 *
 * Recordings are numbered from 1 and never renumbered. A reader (a
 * simulation, a download) holds a use count; delete refuses while one
 * does. Lock: store_lock, a mutex, guards the list, complete and users;
 * the chunk accounting is atomic.
 */
#include <scion/record.h>
#include <scion/chan_wire.h>
#include <scion/mm.h>
#include <scion/mutex.h>
#include <scion/string.h>
#include <scion/format.h>
#include <scion/errno.h>
#include <scion/cpu.h>

#define REC_CHUNK_BYTES     (64 * 1024)
#define REC_STORE_MIN_BYTES (16ull << 20)

struct rec_chunk {
	struct rec_chunk *next;
	uint32_t used;
	/* Records are read in place with 8-byte loads: a strict-alignment
	   machine (SPARC) traps on data at offset 12. */
	uint8_t data[REC_CHUNK_BYTES] __attribute__((aligned(8)));
};

static struct mutex store_lock = MUTEX_INIT(store_lock, "record-store");
static LIST_HEAD(recordings);		/* store_lock */
static unsigned last_id;		/* store_lock */
static uint64_t chunk_bytes;		/* atomic */

uint64_t rec_store_bytes(void)
{
	return __atomic_load_n(&chunk_bytes, __ATOMIC_RELAXED);
}

uint64_t rec_store_limit(void)
{
	struct pmm_stats s;
	pmm_get_stats(&s);
	uint64_t eighth = s.managed_pages * 4096 / 8;
	return eighth > REC_STORE_MIN_BYTES ? eighth : REC_STORE_MIN_BYTES;
}

static struct rec_chunk *chunk_new(void)
{
	if (rec_store_bytes() + sizeof(struct rec_chunk) > rec_store_limit())
		return NULL;
	struct rec_chunk *c = kmalloc(sizeof(*c));
	if (!c)
		return NULL;
	c->next = NULL;
	c->used = 0;
	__atomic_fetch_add(&chunk_bytes, sizeof(*c), __ATOMIC_RELAXED);
	return c;
}

int rec_data_append(struct rec_data *d, const void *rec, uint32_t bytes)
{
	if (bytes == 0 || bytes > REC_RECORD_MAX || bytes % 8)
		return -EINVAL;
	if (!d->tail || d->tail->used + bytes > REC_CHUNK_BYTES) {
		struct rec_chunk *c = chunk_new();
		if (!c)
			return -ENOMEM;
		if (d->tail)
			d->tail->next = c;
		else
			d->head = c;
		d->tail = c;
	}
	memcpy(d->tail->data + d->tail->used, rec, bytes);
	d->tail->used += bytes;
	d->bytes += bytes;
	d->records++;
	return 0;
}

void rec_data_free(struct rec_data *d)
{
	struct rec_chunk *c = d->head;
	while (c) {
		struct rec_chunk *next = c->next;
		kfree(c);
		__atomic_fetch_sub(&chunk_bytes, sizeof(*c), __ATOMIC_RELAXED);
		c = next;
	}
	*d = (struct rec_data){ 0 };
}

void rec_cursor_init(struct rec_cursor *cur, const struct rec_data *d)
{
	cur->chunk = d->head;
	cur->offset = 0;
}

const struct rec_head *rec_cursor_next(struct rec_cursor *cur)
{
	while (cur->chunk && cur->offset >= cur->chunk->used) {
		cur->chunk = cur->chunk->next;
		cur->offset = 0;
	}
	if (!cur->chunk)
		return NULL;
	const struct rec_head *h = (const void *)(cur->chunk->data + cur->offset);
	cur->offset += h->size;
	return h;
}

size_t rec_data_read(const struct rec_data *d, uint64_t offset, void *buf, size_t n)
{
	size_t done = 0;
	for (const struct rec_chunk *c = d->head; c && done < n; c = c->next) {
		if (offset >= c->used) {
			offset -= c->used;
			continue;
		}
		size_t take = c->used - offset < n - done ? c->used - offset : n - done;
		memcpy((uint8_t *)buf + done, c->data + offset, take);
		done += take;
		offset = 0;
	}
	return done;
}

size_t rec_data_read_le(const struct rec_data *d, uint64_t offset, void *buf, size_t n)
{
	if (!CHAN_WIRE_SWAPS)
		return rec_data_read(d, offset, buf, n);
	/* Whole records are turned, so each one overlapping the range is copied and turned. */
	uint64_t record[REC_RECORD_MAX / 8];
	size_t done = 0;
	for (const struct rec_chunk *c = d->head; c && done < n; c = c->next) {
		if (offset >= c->used) {
			offset -= c->used;	/* records never straddle chunks: skip it whole */
			continue;
		}
		for (uint32_t at = 0; at < c->used && done < n;) {
			const struct rec_head *h = (const void *)(c->data + at);
			uint32_t size = h->size;
			if (at + size > offset) {
				memcpy(record, h, size);
				rec_record_to_le((struct rec_head *)record);
				uint32_t from = offset > at ? (uint32_t)(offset - at) : 0;
				size_t take = size - from < n - done ? size - from : n - done;
				memcpy((uint8_t *)buf + done, (const uint8_t *)record + from, take);
				done += take;
			}
			at += size;
		}
		offset = 0;
	}
	return done;
}

/*
 * A k-way merge by sequence number. Each input is in order (one CPU
 * writes its records as the module numbers them), so picking the
 * smallest head each time gives the module's order.
 */
uint64_t rec_data_merge(struct rec_data *out, struct rec_data *from, unsigned n)
{
	struct rec_cursor cur[MAX_CPUS];
	const struct rec_head *next[MAX_CPUS] = { 0 };
	uint64_t lost = 0;

	for (unsigned k = 0; k < n; k++) {
		rec_cursor_init(&cur[k], &from[k]);
		next[k] = rec_cursor_next(&cur[k]);
	}
	for (;;) {
		int best = -1;
		for (unsigned k = 0; k < n; k++)
			if (next[k] && (best < 0 || rec_seq(next[k]) < rec_seq(next[best])))
				best = (int)k;
		if (best < 0)
			break;
		if (rec_data_append(out, next[best], next[best]->size))
			lost++;
		next[best] = rec_cursor_next(&cur[best]);
	}
	for (unsigned k = 0; k < n; k++)
		rec_data_free(&from[k]);
	return lost;
}

bool rec_parse_id(const char *s, unsigned *id)
{
	uint64_t v;
	if (!strncmp(s, "rec", 3))
		s += 3;
	if (!*s || parse_u64(s, &v, false) || v == 0 || v > UINT32_MAX)
		return false;
	*id = (unsigned)v;
	return true;
}

struct recording *rec_store_create(const char *origin)
{
	struct recording *r = kzalloc(sizeof(*r));
	if (!r)
		return NULL;
	strlcpy(r->origin, origin, sizeof(r->origin));
	r->users = 1;
	mutex_lock(&store_lock);
	r->id = ++last_id;
	list_add_tail(&recordings, &r->node);
	mutex_unlock(&store_lock);
	return r;
}

void rec_store_complete(struct recording *r)
{
	for (unsigned s = 0; s < 2; s++)
		r->header[s].records = r->stream[s].records;
	mutex_lock(&store_lock);
	r->complete = true;
	mutex_unlock(&store_lock);
}

static struct recording *find_locked(unsigned id)
{
	list_foreach(&recordings, it) {
		struct recording *r = list_entry(it, struct recording, node);
		if (r->id == id)
			return r;
	}
	return NULL;
}

struct recording *rec_store_get(unsigned id, bool any)
{
	mutex_lock(&store_lock);
	struct recording *r = find_locked(id);
	if (r && (r->complete || any))
		r->users++;
	else
		r = NULL;
	mutex_unlock(&store_lock);
	return r;
}

void rec_store_put(struct recording *r)
{
	mutex_lock(&store_lock);
	r->users--;
	mutex_unlock(&store_lock);
}

int rec_store_delete(unsigned id)
{
	mutex_lock(&store_lock);
	struct recording *r = find_locked(id);
	if (!r || r->users) {
		mutex_unlock(&store_lock);
		return r ? -EBUSY : -ENOENT;
	}
	list_remove(&r->node);
	mutex_unlock(&store_lock);
	rec_data_free(&r->stream[0]);
	rec_data_free(&r->stream[1]);
	kfree(r);
	return 0;
}

int rec_store_discard(struct recording *r)
{
	unsigned id = r->id;
	rec_store_put(r);
	return rec_store_delete(id);
}

void rec_store_foreach(void (*fn)(const struct recording *r, void *arg), void *arg)
{
	mutex_lock(&store_lock);
	list_foreach(&recordings, it)
		fn(list_entry(it, struct recording, node), arg);
	mutex_unlock(&store_lock);
}
